/**
 * The SIMULATED hosting platform: no real resources are created. Each step takes
 * PHASE_DELAY_MS, and SIMULATED_FAILURE=<phase> makes that phase fail, so the failure
 * path can be seen. SIMULATED_FAILURE=<phase>:transient fails it with a transient error
 * instead, which the workflow retries (and which then fails for good after the retries).
 */
import { config } from '../../lib/config';
import { PlatformError, TransientPlatformError, type HostingPlatform } from './hosting-platform';

async function step(phase: string): Promise<void> {
  const { phaseDelayMs, simulatedFailure } = config();
  if (phaseDelayMs > 0) await new Promise((r) => setTimeout(r, phaseDelayMs));
  const [failPhase, kind] = simulatedFailure.split(':');
  if (failPhase !== phase) return;
  const message = `Simulated failure in phase ${phase} (SIMULATED_FAILURE=${simulatedFailure}).`;
  throw kind === 'transient' ? new TransientPlatformError(message) : new PlatformError(message);
}

export const simulatedPlatform: HostingPlatform = {
  provisionDatabase: () => step('provisioning_db'),
  provisionInfrastructure: () => step('provisioning_infrastructure'),
  provisionAppUser: () => step('provisioning_user'),
  syncDags: () => step('syncing_dags'),
  destroyInfrastructure: () => step('destroying_infrastructure'),
  destroyDatabase: () => step('destroying_db'),
};
