/**
 * A deployment's env secrets (decision 41): sealed for `deployment-env` on their
 * deployment as they arrive, and opened only to hand the configuration to the platform
 * driver (the workflow's start-phase step, the one function allowed to). Their keyed
 * digest is env-digest.ts's, apart, so that a function that only digests or only seals
 * bundles only the client it uses (Secrets Manager, KMS).
 */
import { secretSealer } from '../adapters/kms/secret-sealer.js';
import { type PendingConfig, type StoredConfig, sealPending } from '../core/deployment-config.js';
import type { PlatformConfig } from '../core/platform.js';

const PURPOSE = 'deployment-env' as const;

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
