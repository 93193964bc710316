/**
 * The local stand-in for KMS sealing: AES-256-GCM under a 32-byte key (WEBHOOK_SECRET_KEY,
 * or the one kept under DATA_DIR), with what a text is sealed for as authenticated data.
 * `v2:` texts are bound to purpose, organization and record; `v1:` texts, sealed before
 * that, to their purpose alone, and still open that way.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { legacySealContext, type SealedFor, type SecretSealer, sealContext } from '../functions/core/secret-sealer.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

const authenticatedData = (context: Record<string, string>) => Buffer.from(JSON.stringify(context));

/** A v1 text's authenticated data was its purpose, as is. */
const v1Data = (sealedFor: SealedFor) => Buffer.from(legacySealContext(sealedFor).purpose);

export function aesSealer(base64Key: string): SecretSealer {
  const key = Buffer.from(base64Key, 'base64');
  if (key.length !== 32) throw new Error('WEBHOOK_SECRET_KEY must be 32 bytes, base64-encoded.');
  return {
    async seal(plaintext: string, sealedFor: SealedFor) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(authenticatedData(sealContext(sealedFor)));
      const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v2:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
    },
    async open(sealed: string, sealedFor: SealedFor) {
      const [scheme, payload] = sealed.split(':');
      const aad = scheme === 'v2' ? authenticatedData(sealContext(sealedFor)) : scheme === 'v1' ? v1Data(sealedFor) : undefined;
      if (!aad || !payload) throw new Error('Unknown sealed secret format.');
      const bytes = Buffer.from(payload, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      decipher.setAAD(aad);
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
