/**
 * Sealing on AWS: KMS (WEBHOOK_KMS_KEY_ID), with what a text is sealed for as its
 * encryption context, which KMS checks on Decrypt and IAM conditions check per function
 * (infra/aws/functions.ts). `kms2:` texts are bound to purpose, organization and record;
 * `kms:` texts, sealed before that, to their purpose alone, and still open that way.
 */
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { legacySealContext, type SealedFor, type SecretSealer, sealContext } from '../../core/secret-sealer.js';
import { config } from '../../lib/config.js';
import { injectable } from '../../lib/injectable.js';

export function kmsSealer(keyId: string, kms = new KMSClient({})): SecretSealer {
  return {
    async seal(plaintext: string, sealedFor: SealedFor) {
      const { CiphertextBlob } = await kms.send(
        new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(plaintext, 'utf8'), EncryptionContext: sealContext(sealedFor) }),
      );
      return `kms2:${Buffer.from(CiphertextBlob!).toString('base64')}`;
    },
    async open(sealed: string, sealedFor: SealedFor) {
      const [scheme, payload] = sealed.split(':');
      const context = scheme === 'kms2' ? sealContext(sealedFor) : scheme === 'kms' ? legacySealContext(sealedFor) : undefined;
      if (!context || !payload) throw new Error('Unknown sealed secret format.');
      const { Plaintext } = await kms.send(
        new DecryptCommand({ CiphertextBlob: Buffer.from(payload, 'base64'), EncryptionContext: context }),
      );
      return Buffer.from(Plaintext!).toString('utf8');
    },
  };
}

/** The process's sealer: KMS, unless the host that started the process injected another. */
export const secretSealer = /* @__PURE__ */ injectable('SecretSealer', () => {
  const { kmsKeyId } = config().webhooks;
  if (!kmsKeyId) throw new Error('WEBHOOK_KMS_KEY_ID is not set: the stack sets it on the functions that use the webhook key.');
  return kmsSealer(kmsKeyId);
});
