/** Reading operations (writes are in lifecycle-writes.ts). */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { OperationRecord } from '../../core/operations.js';
import type { PageRequest } from '../../core/pagination.js';
import type { OperationStatus, OperationType, Pagination } from '../../core/schemas.js';
import { ddb, tableName } from './client.js';
import { getDeployment } from './deployment-reads.js';
import { ACTIVE_OPERATIONS, lists, operationKey } from './item-keys.js';
import { opCounter, typeSeqAttr } from './lifecycle-writes.js';
import { byFilter, byOffset, byRange, type Page } from './list-query.js';
import { counter, getOrg } from './org-reads.js';

const optional = <T>(value: unknown): T | undefined => (value === undefined || value === null ? undefined : (value as T));

/** A stored item as the record it holds; absent fields stay absent (decision 18). */
export function toOperation(item: Record<string, unknown>): OperationRecord {
  const record: OperationRecord = {
    id: String(item.id),
    org_id: String(item.org_id),
    type: item.type as OperationRecord['type'],
    status: item.status as OperationRecord['status'],
    phase: item.phase as OperationRecord['phase'],
    message: String(item.message),
    resource_id: String(item.resource_id),
    requested_at: String(item.requested_at),
    started_at: optional(item.started_at),
    ended_at: optional(item.ended_at),
    error: optional(item.error),
    result: optional(item.result),
    params: optional(item.params),
    job: optional(item.job),
  };
  for (const k of Object.keys(record) as (keyof OperationRecord)[]) if (record[k] === undefined) delete record[k];
  return record;
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
