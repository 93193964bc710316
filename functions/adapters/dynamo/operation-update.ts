/** The conditional update of one operation, shared by the commands that move one, with the log lines it writes. */

import { logLineKey, operation, operationKey } from '../../../contract/table/entities.js';
import { type LogLineRecord, type NewLogLine, transitionLines } from '../../core/operation-logs.js';
import { isTerminal, type OperationChange, type OperationRecord } from '../../core/operations.js';
import { tableName } from './client.js';
import { type Item, putNew } from './org-lock.js';
import { type TransactItem, updateParts, withCondition } from './transact.js';

export type { OperationChange };

/**
 * The update of one operation, conditional on the status it was read in; its status lists
 * move with its status. The lines of its log the change writes (core/operation-logs.ts),
 * then `extra` ones, are numbered from its `log_count` and put in the same transaction,
 * which holds only if `log_count` is still as read: sequences stay dense, each line one
 * item more in the transaction (docs/data-model.md).
 */
export function operationWrites(
  op: OperationRecord,
  change: OperationChange,
  at: string,
  extra: readonly NewLogLine[] = [],
): Record<string, TransactItem> {
  const set: Item = { ...change };
  const remove: string[] = [];
  if (change.status && change.status !== op.status) {
    Object.assign(set, operation.statusIndexKeys({ ...op }, change.status));
    const active = operation.indexes.activeOperations;
    // An ended operation keeps none of its sealed input (decision 256): every way to end one writes here.
    if (isTerminal(change.status)) remove.push(active.pkAttr, active.skAttr, 'sealed_input');
  }
  const lines = numberLines(op, [...transitionLines(op, change), ...extra], at);
  const last = lines.at(-1);
  if (last) Object.assign(set, { log_count: last.sequence, log_at: last.time });
  const count = op.log_count ?? 0;
  const condition = `#st = :from AND ${count ? '#lc = :lc' : 'attribute_not_exists(#lc)'}`;
  const items: Record<string, TransactItem> = {
    operation: {
      Update: {
        TableName: tableName(),
        Key: operationKey(op.org_id, op.id),
        ...withCondition(
          updateParts(set, remove),
          condition,
          { '#st': 'status', '#lc': 'log_count' },
          { ':from': op.status, ...(count ? { ':lc': count } : {}) },
        ),
      },
    },
  };
  lines.forEach((line, i) => {
    items[`log${i}`] = putNew({ ...logLineKey(op.org_id, op.id, line.sequence), operation_id: op.id, ...line });
  });
  return items;
}

/** Sequences after the operation's last, times never before the last line's (a platform's clock may lag). */
function numberLines(op: OperationRecord, lines: readonly NewLogLine[], at: string): LogLineRecord[] {
  let sequence = op.log_count ?? 0;
  let floor = op.log_at ?? '';
  return lines.map(({ time, ...line }) => {
    const stamped = time && time > at ? at : (time ?? at);
    floor = stamped > floor ? stamped : floor;
    sequence += 1;
    return { sequence, time: floor, phase: line.phase, level: line.level, message: line.message };
  });
}
