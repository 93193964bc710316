/** Reading operations (writes are in lifecycle-repo.ts). */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { OperationRecord } from '../../core/operations.js';
import type { PageRequest } from '../../core/pagination.js';
import type { OperationStatus, OperationType, Pagination } from '../../core/schemas.js';
import { ddb, tableName } from './client.js';
import { getDeployment } from './deployments-repo.js';
import { ACTIVE_OPERATIONS, lists, operationKey } from './keys.js';
import { opCounter, typeSeqAttr } from './lifecycle-repo.js';
import { byFilter, byOffset, byRange, type Page } from './list-query.js';
import { counter, getOrg } from './orgs-repo.js';

const FIELDS = [
  'id',
  'org_id',
  'type',
  'status',
  'phase',
  'message',
  'resource_id',
  'requested_at',
  'started_at',
  'ended_at',
  'error',
  'result',
  'params',
] as const;

export function toOperation(item: Record<string, unknown>): OperationRecord {
  return Object.fromEntries(FIELDS.filter((f) => item[f] !== undefined).map((f) => [f, item[f]])) as unknown as OperationRecord;
}

export async function getOperation(orgId: string, id: string, consistent = false): Promise<OperationRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: operationKey(orgId, id), ConsistentRead: consistent }));
  return Item ? toOperation(Item) : undefined;
}

export interface OperationFilters {
  status?: OperationStatus;
  type?: OperationType;
  resourceId?: string;
}

/**
 * One filter reads its own dense list (type, resource) or status list; several filters
 * read the narrowest list (resource, then type) and filter the rest.
 */
export async function listOperations(
  orgId: string,
  f: OperationFilters,
  req: PageRequest,
): Promise<{ items: OperationRecord[]; pagination: Pagination }> {
  /** A FilterExpression for the filters the chosen list does not already apply. */
  const rest = (applied: 'type' | 'none') => {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const terms: string[] = [];
    if (f.status) {
      names['#st'] = 'status';
      values[':st'] = f.status;
      terms.push('#st = :st');
    }
    if (f.type && applied !== 'type') {
      names['#ty'] = 'type';
      values[':ty'] = f.type;
      terms.push('#ty = :ty');
    }
    return terms.length ? { expression: terms.join(' AND '), names, values } : undefined;
  };
  let page: Page;
  if (f.resourceId !== undefined) {
    const filter = rest('none');
    if (filter) page = await byFilter('gsi3', lists.operationsByResource(orgId, f.resourceId), filter, req);
    else {
      const d = await getDeployment(orgId, f.resourceId);
      page = await byRange('gsi3', lists.operationsByResource(orgId, f.resourceId), d?.op_count ?? 0, req);
    }
  } else if (f.type) {
    const filter = rest('type');
    if (filter) page = await byFilter('gsi2', lists.operationsByType(orgId, f.type), filter, req);
    else page = await byRange('gsi2', lists.operationsByType(orgId, f.type), counter(await getOrg(orgId, true), typeSeqAttr(f.type)), req);
  } else if (f.status) {
    page = await byOffset('gsi4', lists.operationsByStatus(orgId, f.status), counter(await getOrg(orgId, true), opCounter(f.status)), req);
  } else {
    page = await byRange('gsi1', lists.operations(orgId), counter(await getOrg(orgId, true), 'op_seq'), req);
  }
  return { items: page.items.map(toOperation), pagination: page.pagination };
}

/** Operations not yet terminal, oldest first, across organizations (the reconciler's view). */
export async function listActiveOperations(limit = 100): Promise<OperationRecord[]> {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi5',
      KeyConditionExpression: 'gsi5pk = :pk',
      ExpressionAttributeValues: { ':pk': ACTIVE_OPERATIONS },
      Limit: limit,
    }),
  );
  return Items.map(toOperation);
}
