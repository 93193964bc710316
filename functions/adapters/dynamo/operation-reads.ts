/** Reading operations (writes are in lifecycle-writes.ts). */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { OperationRecord } from '../../core/operations.js';
import type { PageRequest } from '../../core/pagination.js';
import type { OperationStatus, OperationType, Pagination } from '../../core/schemas.js';
import { ddb, tableName } from './client.js';
import { getDeployment } from './deployment-reads.js';
import { ACTIVE_OPERATIONS, lists, operationKey } from './item-keys.js';
import { typeSeqAttr } from './lifecycle-writes.js';
import { byRange, type Page } from './list-query.js';
import { counter, getOrg } from './org-reads.js';
import { byStatus } from './status-counts.js';

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
    update: optional(item.update),
    job: optional(item.job),
    positions:
      item.res_type_seq === undefined
        ? undefined
        : { all: Number(item.seq), type: Number(item.type_seq), resource: Number(item.res_seq), resourceType: Number(item.res_type_seq) },
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
 * Without a status, a filter's list is dense (all, one type, one deployment, one
 * deployment and type): page N is a key range. With a status, the page is found from that
 * list's status counts (status-counts.ts). Either way a page reads what it returns.
 */
export async function listOperations(
  orgId: string,
  f: OperationFilters,
  req: PageRequest,
): Promise<{ items: OperationRecord[]; pagination: Pagination }> {
  const { status, type, resourceId } = f;
  let page: Page;
  if (status) {
    const [base, index, pk] =
      resourceId !== undefined && type
        ? ([
            lists.operationsByResourceAndType(orgId, resourceId, type),
            'gsi9',
            lists.operationsByResourceTypeAndStatus(orgId, resourceId, type, status),
          ] as const)
        : resourceId !== undefined
          ? ([
              lists.operationsByResource(orgId, resourceId),
              'gsi7',
              lists.operationsByResourceAndStatus(orgId, resourceId, status),
            ] as const)
          : type
            ? ([lists.operationsByType(orgId, type), 'gsi6', lists.operationsByTypeAndStatus(orgId, type, status)] as const)
            : ([lists.operations(orgId), 'gsi4', lists.operationsByStatus(orgId, status)] as const);
    page = await byStatus(base, status, index, pk, req);
  } else if (resourceId !== undefined) {
    const d = await getDeployment(orgId, resourceId);
    page = type
      ? await byRange('gsi8', lists.operationsByResourceAndType(orgId, resourceId, type), d?.op_counts?.[type] ?? 0, req)
      : await byRange('gsi3', lists.operationsByResource(orgId, resourceId), d?.op_count ?? 0, req);
  } else if (type) {
    page = await byRange('gsi2', lists.operationsByType(orgId, type), counter(await getOrg(orgId, true), typeSeqAttr(type)), req);
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
