/**
 * A deployment's env secrets (decision 41): sealed for `deployment-env` on their
 * deployment as they arrive, compared by a keyed digest (so a value set again is found
 * equal without opening it), and opened only to hand the configuration to the platform
 * driver (the workflow's start-phase step, the one function allowed to).
 */
import { hkdfSync } from 'node:crypto';
import { secretSealer } from '../adapters/kms/secret-sealer.js';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import { type PendingConfig, type StoredConfig, sealPending, secretDigest } from '../core/deployment-config.js';
import type { PlatformConfig } from '../core/platform.js';

const PURPOSE = 'deployment-env' as const;

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

/** Seals the fresh secrets of a configuration for its deployment. */
export const sealEnv = (config: PendingConfig, orgId: string, deploymentId: string): Promise<StoredConfig> =>
  sealPending(config, (_name, value) => secretSealer().seal(value, { purpose: PURPOSE, orgId, recordId: deploymentId }));

/** The configuration as the platform driver receives it: every secret opened. */
export async function openEnv(config: StoredConfig, orgId: string, deploymentId: string): Promise<PlatformConfig> {
  const env = await Promise.all(
    Object.entries(config.env).map(async ([name, e]) => {
      const value = e.secret ? await secretSealer().open(e.sealed, { purpose: PURPOSE, orgId, recordId: deploymentId }) : e.value;
      return [name, { value, secret: e.secret }] as const;
    }),
  );
  return { app_version: config.app_version, size: config.size, env: Object.fromEntries(env) };
}
