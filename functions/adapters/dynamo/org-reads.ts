/** Organization items: created with the first key; they hold the org's counters (docs/data-model.md). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { orgKey } from '../../../contract/table/entities.js';
import { ddb, tableName } from './client.js';

export type OrgItem = Record<string, unknown>;

/** The organization item, or an empty one when the organization has no record yet. */
export async function getOrg(orgId: string, consistent = false): Promise<OrgItem> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: consistent }));
  return Item ?? {};
}

/** A counter of the organization item (0 when absent). */
export const counter = (org: OrgItem, attr: string): number => Number(org[attr] ?? 0);
