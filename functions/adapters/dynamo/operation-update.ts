/** The conditional update of one operation, shared by the commands that move one. */
import { isTerminal, type OperationRecord } from '../../core/operations.js';
import { tableName } from './client.js';
import { operation, operationKey } from './entities.js';
import type { Item } from './org-lock.js';
import { type TransactItem, updateParts, withCondition } from './transact.js';

export type OperationChange = Partial<
  Pick<OperationRecord, 'status' | 'phase' | 'message' | 'started_at' | 'ended_at' | 'error' | 'result' | 'job'>
>;

/** The update of one operation, conditional on the status it was read in; its status lists move with its status. */
export function operationUpdate(op: OperationRecord, change: OperationChange): TransactItem {
  const set: Item = { ...change };
  const remove: string[] = [];
  if (change.status && change.status !== op.status) {
    Object.assign(set, operation.statusIndexKeys({ ...op }, change.status));
    const active = operation.indexes.activeOperations;
    if (isTerminal(change.status)) remove.push(active.pkAttr, active.skAttr);
  }
  return {
    Update: {
      TableName: tableName(),
      Key: operationKey(op.org_id, op.id),
      ...withCondition(updateParts(set, remove), '#st = :from', { '#st': 'status' }, { ':from': op.status }),
    },
  };
}
