/** The key usage log (decision 34): one item per request, expiring after 90 days. */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { keyUsagePk } from './keys.js';

export const USAGE_RETENTION_DAYS = 90;

export interface UsageEntry {
  at: string;
  method: string;
  route: string;
  status: number;
  key_id: string;
  org_id: string;
  request_id: string;
}

export async function recordUsage(entry: UsageEntry): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        pk: keyUsagePk(entry.key_id),
        sk: `${entry.at}#${entry.request_id}`,
        ...entry,
        ttl: Math.floor(Date.parse(entry.at) / 1000) + USAGE_RETENTION_DAYS * 86_400,
      },
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
  return Items.map(
    ({ at, method, route, status, key_id, org_id, request_id }) =>
      ({
        at,
        method,
        route,
        status,
        key_id,
        org_id,
        request_id,
      }) as UsageEntry,
  );
}
