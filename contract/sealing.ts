/**
 * What a sealed secret is bound to (core/secret-sealer.ts says why): the purposes a text
 * may be sealed for and the names of the context it is bound to. The runtime binds them
 * (KMS's encryption context, the local seal's authenticated data) and the stack's IAM
 * conditions name them (`kms:EncryptionContext:<name>`), so they are declared here once.
 */

/** `delivery` (a webhook's own copy), `replay` (a kept Idempotency-Key answer), `deployment-env` (a deployment's env secret), `operation-input` (what an operation hands the driver that no record may show). */
export type SealPurpose = 'delivery' | 'replay' | 'deployment-env' | 'operation-input';

/** The names of what a sealed text is bound to, which IAM conditions name (`kms:EncryptionContext:<name>`). */
export const SEAL_CONTEXT_KEYS = ['purpose', 'org', 'record'] as const;
