/**
 * Webhook secrets at rest, so the table alone (a backup, an export, a read-only role)
 * never shows one. Each sealed text is bound to its purpose: `delivery` (the webhook's
 * own copy, which only the deliverer may open) or `replay` (the creating answer kept for
 * an Idempotency-Key replay, which only the creating function may open). On AWS, KMS
 * (WEBHOOK_KMS_KEY_ID) with the purpose as encryption context, which IAM conditions
 * check; locally, AES-256-GCM under WEBHOOK_SECRET_KEY (kept under DATA_DIR) with the
 * purpose as authenticated data.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../lib/config.js';

let kms: KMSClient | undefined;
const kmsClient = () => {
  kms ??= new KMSClient({});
  return kms;
};

function localKey(): Buffer {
  const raw = config().webhooks.secretKey;
  const k = raw ? Buffer.from(raw, 'base64') : undefined;
  if (k?.length !== 32) throw new Error('Set WEBHOOK_KMS_KEY_ID, or WEBHOOK_SECRET_KEY to 32 bytes, base64-encoded.');
  return k;
}

export type SealPurpose = 'delivery' | 'replay' | 'deployment-env';

export async function seal(plaintext: string, purpose: SealPurpose): Promise<string> {
  const keyId = config().webhooks.kmsKeyId;
  if (keyId) {
    const { CiphertextBlob } = await kmsClient().send(
      new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: { purpose } }),
    );
    return `kms:${Buffer.from(CiphertextBlob!).toString('base64')}`;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', localKey(), iv);
  cipher.setAAD(Buffer.from(purpose));
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

export async function open(sealedText: string, purpose: SealPurpose): Promise<string> {
  const [scheme, payload] = sealedText.split(':');
  if (!payload) throw new Error('Unknown sealed secret format.');
  const bytes = Buffer.from(payload, 'base64');
  if (scheme === 'kms') {
    const { Plaintext } = await kmsClient().send(new DecryptCommand({ CiphertextBlob: bytes, EncryptionContext: { purpose } }));
    return Buffer.from(Plaintext!).toString('utf8');
  }
  if (scheme !== 'v1') throw new Error('Unknown sealed secret format.');
  const decipher = createDecipheriv('aes-256-gcm', localKey(), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  decipher.setAAD(Buffer.from(purpose));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
