/**
 * An operation's sealed input (decision 256): what it hands the platform driver that no
 * record, event or log may show (an app user's password, decision 51). Sealed for
 * `operation-input` on the operation as the request arrives, opened only by the phase
 * steps (start-phase, for the driver's job; check-phase, to keep it out of the log), and
 * removed from the record when the operation ends, whichever way it ends
 * (adapters/dynamo/operation-update.ts).
 */
import { secretSealer } from '../adapters/kms/secret-sealer.js';
import type { OperationRecord } from '../core/operations.js';
import type { SealedFor } from '../core/secret-sealer.js';

const sealedFor = (orgId: string, operationId: string): SealedFor => ({ purpose: 'operation-input', orgId, recordId: operationId });

/** Each value sealed for the operation that is about to be written with them. */
export async function sealInput(values: Record<string, string>, orgId: string, operationId: string): Promise<Record<string, string>> {
  const sealed = await Promise.all(
    Object.entries(values).map(async ([name, value]) => [name, await secretSealer().seal(value, sealedFor(orgId, operationId))] as const),
  );
  return Object.fromEntries(sealed);
}

/** The operation's sealed input, opened (none once the operation ended). */
export async function openInput(op: Pick<OperationRecord, 'id' | 'org_id' | 'sealed_input'>): Promise<Record<string, string>> {
  const opened = await Promise.all(
    Object.entries(op.sealed_input ?? {}).map(
      async ([name, sealed]) => [name, await secretSealer().open(sealed, sealedFor(op.org_id, op.id))] as const,
    ),
  );
  return Object.fromEntries(opened);
}
