/**
 * The key usage log (decision 34): one item per request, expiring after 90 days. Each
 * entry is keyed by its time and an id the server makes, never by anything the caller
 * sends: the caller's X-Request-Id is only an attribute, so requests that share one
 * still get an entry each.
 */
import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keyUsagePk, usageEntry } from '../../../contract/table/entities.js';
import { ddb, tableName } from './client.js';

export const USAGE_RETENTION_DAYS = 90;

export interface UsageEntry {
  at: string;
  method: string;
  /** The route's template (`/api/v1/deployments/{deployment_id}`), what the request matched. */
  route: string;
  /** The path the request named, without its query (`/api/v1/deployments/3f…`). */
  path: string;
  status: number;
  /** The request's source address, as the gateway saw it. */
  client_address: string | null;
  /** From arrival to answer, in milliseconds; set when the answer is known (absent before that). */
  duration_ms?: number;
  key_id: string;
  org_id: string;
  request_id: string;
  /** Present (true) when the request used a deprecated feature (decision 44). */
  deprecated?: true;
}

/** Where one entry is stored: its time and a server-made id. */
export interface UsageEntryKey {
  pk: string;
  sk: string;
}

export function usageEntryKey(entry: Pick<UsageEntry, 'key_id' | 'at'>): UsageEntryKey {
  return usageEntry.key({ key_id: entry.key_id, at: entry.at, id: randomUUID() });
}

export async function recordUsage(entry: UsageEntry, key: UsageEntryKey = usageEntryKey(entry)): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...key, ...entry, ttl: Math.floor(Date.parse(entry.at) / 1000) + USAGE_RETENTION_DAYS * 86_400 },
      // Never replaces an entry, even in the (astronomically unlikely) event of a repeated id.
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** Completes an entry written before its answer was known: the status answered and the duration. */
export async function settleUsage(key: UsageEntryKey, status: number, durationMs: number): Promise<void> {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #status = :status, #duration = :duration',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status', '#duration': 'duration_ms' },
      ExpressionAttributeValues: { ':status': status, ':duration': durationMs },
    }),
  );
}

/** The newest entries first. */
export async function listUsage(keyId: string, limit: number): Promise<UsageEntry[]> {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keyUsagePk(keyId) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items.map((item) => ({
    at: String(item.at),
    method: String(item.method),
    route: String(item.route),
    path: String(item.path ?? item.route),
    status: Number(item.status),
    client_address: typeof item.client_address === 'string' ? item.client_address : null,
    ...(typeof item.duration_ms === 'number' ? { duration_ms: item.duration_ms } : {}),
    key_id: String(item.key_id),
    org_id: String(item.org_id),
    request_id: String(item.request_id),
    ...(item.deprecated === true ? { deprecated: true as const } : {}),
  }));
}
