/**
 * The driver this deployment runs: the simulated platform, configured by PHASE_DELAY_MS
 * and SIMULATED_FAILURE. A real driver is plugged in here (docs/platform.md).
 */
import type { OperationRecord } from '../../core/operations.js';
import { config } from '../../lib/config.js';
import { injectable } from '../../lib/injectable.js';
import { logger } from '../../lib/logger.js';
import { simulatedPlatform } from './simulated-platform.js';

export const hostingPlatform = /* @__PURE__ */ injectable('HostingPlatform', () => simulatedPlatform(config()));

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
