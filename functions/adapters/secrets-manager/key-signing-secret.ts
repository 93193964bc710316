/**
 * The secret API keys are signed with, on AWS: a Secrets Manager secret the stack
 * generates (API_KEY_SECRET_ARN), readable only by the functions that verify or mint
 * keys, so it never sits in a function's environment. Read once per process and kept;
 * a failed read is not kept, so the next request tries again.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { type KeySigningSecret, signingSecretBytes } from '../../core/key-signing.js';
import { config } from '../../lib/config.js';
import { injectable } from '../../lib/injectable.js';

export function secretsManagerSigningSecret(secretArn: string, client = new SecretsManagerClient({})): KeySigningSecret {
  let loading: Promise<Buffer> | undefined;
  const load = async () => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    return signingSecretBytes(SecretString, `The secret ${secretArn}`);
  };
  return {
    read() {
      loading ??= load().catch((e: unknown) => {
        loading = undefined;
        throw e;
      });
      return loading;
    },
  };
}

/** The process's signing secret: Secrets Manager, unless the host that started the process injected another. */
export const keySigningSecret = /* @__PURE__ */ injectable('KeySigningSecret', () => {
  const { secretArn } = config().apiKeys;
  if (!secretArn) throw new Error('API_KEY_SECRET_ARN is not set: the stack sets it on the functions that verify or mint keys.');
  return secretsManagerSigningSecret(secretArn);
});
