/** Reading operations (written by insert-deployment.ts, insert-operation.ts and apply-transition.ts). */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { OperationStatus, OperationType, Pagination } from '../../../contract/schemas.js';
import { operation, operationKey, typeSeqAttr } from '../../../contract/table/entities.js';
import type { OperationRecord } from '../../core/operations.js';
import type { PageRequest } from '../../core/pagination.js';
import { ddb, tableName } from './client.js';
import { getDeployment } from './deployment-reads.js';
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
    sealed_input: optional(item.sealed_input),
    update: optional(item.update),
    job: optional(item.job),
    log_count: optional(item.log_count),
    log_at: optional(item.log_at),
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
  const values = { org_id: orgId, type, resource_id: resourceId, status };
  const lists = operation.indexes;
  const list =
    resourceId !== undefined ? (type ? lists.opsByResourceType : lists.opsByResource) : type ? lists.opsByType : lists.operations;
  let page: Page;
  if (status) {
    page = await byStatus(operation, list, { ...values, status }, req);
  } else if (resourceId !== undefined) {
    const d = await getDeployment(orgId, resourceId);
    page = await byRange(list, values, (type ? d?.op_counts?.[type] : d?.op_count) ?? 0, req);
  } else {
    page = await byRange(list, values, counter(await getOrg(orgId, true), type ? typeSeqAttr(type) : 'op_seq'), req);
  }
  return { items: page.items.map(toOperation), pagination: page.pagination };
}

/** Operations not yet terminal, oldest first, across organizations (the reconciler's view). */
export async function listActiveOperations(limit = 100): Promise<OperationRecord[]> {
  const active = operation.indexes.activeOperations;
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: active.physical,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': active.pkAttr },
      ExpressionAttributeValues: { ':pk': active.pk.build({}) },
      Limit: limit,
    }),
  );
  return Items.map(toOperation);
}
