/**
 * Decision 36: the operation as soon as it is terminal or has left `phase`, else as it
 * is when `timeoutSeconds` have passed. One consistent read every half second while it
 * waits: an answer within a second of the change, at about 40 reads for a full 20 s.
 */
import { getOperation } from '../adapters/dynamo/operation-reads.js';
import { isTerminal, type OperationRecord } from '../core/operations.js';
import type { Phase } from '../core/schemas.js';
import { findOperation } from './lookups.js';

export const WAIT_POLL_MS = 500;

export interface WaitFor {
  phase?: Phase;
  timeoutSeconds: number;
}

const settled = (op: OperationRecord, phase: Phase | undefined) => isTerminal(op.status) || (phase !== undefined && op.phase !== phase);

export async function waitForOperation(orgId: string, id: string, { phase, timeoutSeconds }: WaitFor): Promise<OperationRecord> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let op = await findOperation(orgId, id);
  for (;;) {
    const left = deadline - Date.now();
    if (settled(op, phase) || left <= 0) return op;
    await new Promise((r) => setTimeout(r, Math.min(WAIT_POLL_MS, left)));
    op = (await getOperation(orgId, op.id, true)) ?? op;
  }
}
