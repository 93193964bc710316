/**
 * The secret new API keys are signed with (core/api-keys.ts), read once per process and
 * kept: verifying a key then costs no call. On AWS it is a Secrets Manager secret the
 * stack generates (API_KEY_SECRET_ARN), readable only by the functions that verify or
 * mint keys, so it never sits in a function's environment; locally it is API_KEY_SECRET
 * (base64, 32 bytes, kept under DATA_DIR).
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { config } from '../../lib/config.js';

let loading: Promise<Buffer> | undefined;

export function keySigningSecret(): Promise<Buffer> {
  // A failed read is not kept: the next request tries again.
  loading ??= load().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

async function load(): Promise<Buffer> {
  const { secretArn, secret } = config().apiKeys;
  const raw = secretArn
    ? (await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: secretArn }))).SecretString
    : secret;
  const bytes = raw ? Buffer.from(raw, 'base64') : undefined;
  if (!bytes || bytes.length < 32) throw new Error('Set API_KEY_SECRET_ARN, or API_KEY_SECRET to at least 32 bytes, base64-encoded.');
  return bytes;
}
