/** Organization items: created with the first key; they hold the org's counters (docs/data-model.md). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client';
import { orgKey } from './keys';

export type OrgItem = Record<string, unknown> & { org_id: string; created_at: string };

export async function getOrg(orgId: string, consistent = false): Promise<OrgItem | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: consistent }));
  return Item as OrgItem | undefined;
}
