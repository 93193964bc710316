/**
 * A deployment's env secrets are compared by a keyed digest (decision 41), so a value set
 * again is found equal without opening it (env-secrets.ts seals and opens them).
 */
import { hkdfSync } from 'node:crypto';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import { secretDigest } from '../core/deployment-config.js';

let digestKey: Promise<Buffer> | undefined;

/** The digest key: derived (HKDF) from the server secret API keys are signed with, under its own label, so it serves nothing else. */
function envDigestKey(): Promise<Buffer> {
  const derived =
    digestKey ??
    keySigningSecret()
      .read()
      .then((secret) => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'deployment-env digest', 32)))
      .catch((e: unknown) => {
        digestKey = undefined;
        throw e;
      });
  digestKey = derived;
  return derived;
}

/** Digests a value as a secret of this deployment's env. */
export async function envDigester(orgId: string, deploymentId: string): Promise<(name: string, value: string) => string> {
  const key = await envDigestKey();
  return (name, value) => secretDigest(key, { orgId, deploymentId, name }, value);
}
