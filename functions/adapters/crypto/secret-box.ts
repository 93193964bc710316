/**
 * Webhook secrets at rest, so the table alone (a backup, an export, a read-only role)
 * never shows one. On AWS they are sealed by KMS (WEBHOOK_KMS_KEY_ID): the creating
 * function may only encrypt, the deliverer only decrypt. Locally, AES-256-GCM under
 * WEBHOOK_SECRET_KEY, a key the local stack keeps owner-only under DATA_DIR.
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

export async function seal(plaintext: string): Promise<string> {
  const keyId = config().webhooks.kmsKeyId;
  if (keyId) {
    const { CiphertextBlob } = await kmsClient().send(new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(plaintext, 'utf8') }));
    return `kms:${Buffer.from(CiphertextBlob!).toString('base64')}`;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', localKey(), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

export async function open(sealedText: string): Promise<string> {
  const [scheme, payload] = sealedText.split(':');
  if (!payload) throw new Error('Unknown sealed secret format.');
  const bytes = Buffer.from(payload, 'base64');
  if (scheme === 'kms') {
    const { Plaintext } = await kmsClient().send(new DecryptCommand({ CiphertextBlob: bytes }));
    return Buffer.from(Plaintext!).toString('utf8');
  }
  if (scheme !== 'v1') throw new Error('Unknown sealed secret format.');
  const decipher = createDecipheriv('aes-256-gcm', localKey(), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
}
