/** Every item of the test's table, page by page: for the checks that no item holds a secret in the clear. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';

export async function scanTable(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
