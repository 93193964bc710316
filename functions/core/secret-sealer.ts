/**
 * Secrets at rest (webhook secrets, deployments' env secrets), so the table alone (a backup, an export, a read-only role)
 * never shows one. A sealed text opens only for what it was sealed for: its purpose,
 * `delivery` (the webhook's own copy, which only the deliverer may open) or `replay` (the
 * creating answer kept for an Idempotency-Key replay, which only the creating function
 * may open) or `deployment-env` (a deployment's env secret, which only the workflow's
 * start-phase step may open, to hand it to the platform driver) or `operation-input` (what an
 * operation hands the driver that no record may show: an app user's password, decision 51, which
 * the phase steps open), and the organization and record it belongs to, so a sealed text copied to
 * another record, or another organization's, does not open there.
 */
import { SEAL_CONTEXT_KEYS, type SealPurpose } from '../../contract/sealing.js';

// The purposes and the context's names are the stack's too (its IAM conditions): contract/sealing.ts.
export { SEAL_CONTEXT_KEYS, type SealPurpose };

export interface SealedFor {
  purpose: SealPurpose;
  orgId: string;
  /** The record the sealed text is stored on: the webhook's id, the Idempotency-Key of the kept answer, the deployment's id (its env secrets, decision 41), or the operation's id (its sealed input). */
  recordId: string;
}

export interface SecretSealer {
  seal(plaintext: string, sealedFor: SealedFor): Promise<string>;
  /** Fails unless `sealedFor` is what the text was sealed for. */
  open(sealed: string, sealedFor: SealedFor): Promise<string>;
}

/** What a sealed text is bound to, as names and values: the KMS encryption context, the authenticated data of a local seal. */
export const sealContext = ({ purpose, orgId, recordId }: SealedFor): Record<(typeof SEAL_CONTEXT_KEYS)[number], string> => ({
  purpose,
  org: orgId,
  record: recordId,
});

/** What texts sealed before the organization and record were bound were bound to: the purpose alone. */
export const legacySealContext = ({ purpose }: SealedFor): { purpose: string } => ({ purpose });
