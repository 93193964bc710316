/**
 * The operation as soon as it is terminal or has left `phase`, else as it is when
 * `timeoutSeconds` have passed, so a client learns of a change without polling
 * (decision 36). One consistent read every half second while it waits: an answer within
 * a second of the change, at about 40 reads for a full 20 s.
 *
 * Those reads and the function's concurrency are shared by every organization, so an
 * organization holds at most WAITS_PER_ORGANIZATION waits at once (wait-slots.ts); one
 * more is answered 429 with Retry-After, which the typed client's waiter honours. A
 * wait whose condition already holds answers at once and takes no slot.
 */

import type { Phase } from '../../contract/schemas.js';
import { getOperation } from '../adapters/dynamo/operation-reads.js';
import { releaseWaitSlot, takeWaitSlot } from '../adapters/dynamo/wait-slots.js';
import { isTerminal, type OperationRecord } from '../core/operations.js';
import { tooManyWaits } from '../core/rate-limits.js';
import { config } from '../lib/config.js';
import { findOperation } from './lookups.js';

export const WAIT_POLL_MS = 500;

export interface WaitFor {
  phase?: Phase;
  timeoutSeconds: number;
}

const settled = (op: OperationRecord, phase: Phase | undefined) => isTerminal(op.status) || (phase !== undefined && op.phase !== phase);

/** A slot outlives its wait by this much, so a slow release never frees it early. */
const LEASE_MARGIN_SECONDS = 10;

export async function waitForOperation(orgId: string, id: string, wait: WaitFor): Promise<OperationRecord> {
  const op = await findOperation(orgId, id);
  if (settled(op, wait.phase)) return op;
  const limit = config().waitsPerOrganization;
  const slot = await takeWaitSlot(orgId, limit, wait.timeoutSeconds + LEASE_MARGIN_SECONDS, new Date());
  if (!slot) throw tooManyWaits(limit);
  try {
    return await pollUntilSettled(orgId, op, wait);
  } finally {
    await releaseWaitSlot(orgId, slot);
  }
}

async function pollUntilSettled(orgId: string, first: OperationRecord, { phase, timeoutSeconds }: WaitFor): Promise<OperationRecord> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let op = first;
  for (;;) {
    const left = deadline - Date.now();
    if (settled(op, phase) || left <= 0) return op;
    await new Promise((r) => setTimeout(r, Math.min(WAIT_POLL_MS, left)));
    op = (await getOperation(orgId, op.id, true)) ?? op;
  }
}
