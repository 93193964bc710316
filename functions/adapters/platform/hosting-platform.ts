/**
 * The driver this deployment runs, chosen by PLATFORM (decision 52): the simulated
 * platform (the default; PHASE_DELAY_MS and SIMULATED_FAILURE configure it), or `ecs`,
 * the ECS driver configured by PLATFORM_SETTINGS (docs/platform.md).
 */
import type { OperationRecord } from '../../core/operations.js';
import type { HostingPlatform } from '../../core/platform.js';
import { config } from '../../lib/config.js';
import { injectable } from '../../lib/injectable.js';
import { logger } from '../../lib/logger.js';
import { ecsPlatform } from './ecs/ecs-platform.js';
import { parseEcsSettings } from './ecs/settings.js';
import { simulatedPlatform } from './simulated-platform.js';

function chosenPlatform(): HostingPlatform {
  const c = config();
  if (c.platform !== 'ecs') return simulatedPlatform(c);
  return ecsPlatform({ settings: parseEcsSettings(c.platformSettings), appDomain: c.appDomain });
}

export const hostingPlatform = /* @__PURE__ */ injectable('HostingPlatform', chosenPlatform);
/**
 * Asks the driver to put back the configuration a failed or canceled update replaced, and
 * does not wait on it (the deployment's record already keeps the previous configuration):
 * the outcome is logged.
 */
export async function restoreConfig(op: Pick<OperationRecord, 'id' | 'org_id' | 'resource_id'>): Promise<void> {
  try {
    const driver = hostingPlatform();
    if (!driver.restore) return;
    await driver.restore({ operationId: op.id, orgId: op.org_id, deploymentId: op.resource_id });
    logger.info('configuration restore started', { operation_id: op.id });
  } catch (e) {
    logger.error('configuration restore could not be started', { operation_id: op.id, error: e as Error });
  }
}
