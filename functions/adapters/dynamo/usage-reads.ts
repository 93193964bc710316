/**
 * The usage log as the dashboard reads it: newest first, a page at a time from a
 * cursor, optionally one status code only. A filtered read may have to pass over
 * entries of other codes; it reads at most MAX_READS query pages per request and then
 * answers with what it found and a cursor to go on from.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { UsagePage } from '../../../contract/dashboard-schemas.js';
import { invalidRequest } from '../../../contract/errors.js';
import { keyUsagePk } from '../../../contract/table/entities.js';
import { ddb, tableName } from './client.js';

const MAX_READS = 5;
/** The sort key of a usage entry: its time and a server-made id (usage-store.ts). */
const USAGE_SK = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[0-9a-f-]{36}$/;

const encodeCursor = (sk: string) => Buffer.from(sk, 'utf8').toString('base64url');

function decodeCursor(cursor: string): string {
  const sk = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!USAGE_SK.test(sk)) throw invalidRequest('The query is invalid.', [{ field: 'cursor', issue: 'is not a cursor this API gave' }]);
  return sk;
}

export interface UsageQuery {
  perPage: number;
  status?: number;
  cursor?: string;
}

export async function readUsagePage(keyId: string, q: UsageQuery): Promise<UsagePage> {
  const pk = keyUsagePk(keyId);
  const items: UsagePage['items'] = [];
  let start: Record<string, unknown> | undefined = q.cursor ? { pk, sk: decodeCursor(q.cursor) } : undefined;
  let lastSk: string | undefined;
  for (let reads = 0; reads < MAX_READS && items.length < q.perPage; reads++) {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ...(q.status === undefined
          ? { ExpressionAttributeValues: { ':pk': pk } }
          : {
              FilterExpression: '#status = :status',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':pk': pk, ':status': q.status },
            }),
        ScanIndexForward: false,
        // Unfiltered, exactly what is missing; filtered, a full page's worth of candidates per read.
        Limit: q.status === undefined ? q.perPage - items.length : 100,
        ExclusiveStartKey: start,
      }),
    );
    let shownAll = true;
    for (const item of page.Items ?? []) {
      if (items.length === q.perPage) {
        shownAll = false;
        break;
      }
      items.push({
        at: String(item.at),
        method: String(item.method),
        route: String(item.route),
        path: String(item.path ?? item.route),
        status: Number(item.status),
        client_address: typeof item.client_address === 'string' ? item.client_address : null,
        duration_ms: typeof item.duration_ms === 'number' ? item.duration_ms : null,
        request_id: String(item.request_id),
        ...(item.deprecated === true ? { deprecated: true } : {}),
      });
      lastSk = String(item.sk);
    }
    // Stopped inside a query page: go on after the last entry shown.
    if (!shownAll) return { items, next_cursor: encodeCursor(lastSk!) };
    start = page.LastEvaluatedKey;
    if (!start) return { items, next_cursor: null };
  }
  return { items, next_cursor: encodeCursor(String(start!.sk)) };
}
