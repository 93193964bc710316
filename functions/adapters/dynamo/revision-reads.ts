/**
 * Reading a deployment's revisions (decision 43). Revision n is item `REV#<deployment>#<n>`
 * of the organization, so page N, newest first, is one key range of the base table: a
 * page reads exactly the items it returns, at any depth. A deployment stored before
 * revisions has no item for revision 1: it reads as the default configuration, applied
 * at creation by the create operation (its first).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Pagination } from '../../../contract/schemas.js';
import { operation, revisionKey } from '../../../contract/table/entities.js';
import { defaultConfig } from '../../core/deployment-config.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import { type PageRequest, pageWindow } from '../../core/pagination.js';
import type { RevisionRecord } from '../../core/revisions.js';
import { config } from '../../lib/config.js';
import { ddb, tableName } from './client.js';
import { byRange, queryAll } from './list-query.js';

type Item = Record<string, unknown>;

export const toRevision = (item: Item): RevisionRecord => ({
  org_id: String(item.org_id),
  deployment_id: String(item.deployment_id),
  revision: Number(item.revision),
  config: item.config as RevisionRecord['config'],
  created_at: String(item.created_at),
  operation_id: String(item.operation_id),
  rollback_of: typeof item.rollback_of === 'number' ? item.rollback_of : null,
});

export async function getRevision(d: DeploymentRecord, n: number): Promise<RevisionRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: revisionKey(d.org_id, d.id, n) }));
  if (Item) return toRevision(Item);
  return n === 1 ? synthesizedFirst(d) : undefined;
}

export async function listRevisions(d: DeploymentRecord, req: PageRequest): Promise<{ items: RevisionRecord[]; pagination: Pagination }> {
  const w = pageWindow(d.revision, req);
  if (w.from > w.to) return { items: [], pagination: w.pagination };
  const read = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: {
      ':pk': revisionKey(d.org_id, d.id, w.from).pk,
      ':from': revisionKey(d.org_id, d.id, w.from).sk,
      ':to': revisionKey(d.org_id, d.id, w.to).sk,
    },
    ScanIndexForward: false,
  });
  const items = read.map(toRevision);
  if (w.from === 1 && items.at(-1)?.revision !== 1) {
    const first = await synthesizedFirst(d);
    if (first) items.push(first);
  }
  return { items, pagination: w.pagination };
}

/** Revision 1 of a deployment stored before revisions: the default configuration, or the current one if never updated. */
async function synthesizedFirst(d: DeploymentRecord): Promise<RevisionRecord | undefined> {
  // The create is the deployment's first operation: position 1 of its operations.
  const { items } = await byRange(operation.indexes.opsByResource, { org_id: d.org_id, resource_id: d.id }, 1, { page: 1, per_page: 1 });
  const create = items[0];
  if (!create) return undefined;
  return {
    org_id: d.org_id,
    deployment_id: d.id,
    revision: 1,
    config: d.revision === 1 ? d.config : defaultConfig(d.app_type, config().appVersions),
    created_at: d.created_at,
    operation_id: String(create.id),
    rollback_of: null,
  };
}
