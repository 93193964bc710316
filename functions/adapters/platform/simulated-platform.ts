/**
 * The SIMULATED hosting platform: no real resources are created. Each step takes
 * `phaseDelayMs` (PHASE_DELAY_MS), and `simulatedFailure` (SIMULATED_FAILURE=<phase>)
 * makes that phase fail, so the failure path can be seen. `<phase>:transient` fails it
 * with a transient error instead, which the workflow retries and then gives up on.
 */
import { type HostingPlatform, PlatformError, platformOf, TransientPlatformError } from '../../core/platform.js';

export interface SimulationSettings {
  phaseDelayMs: number;
  simulatedFailure: string;
}

export function simulatedPlatform({ phaseDelayMs, simulatedFailure }: SimulationSettings): HostingPlatform {
  const [failPhase, kind] = simulatedFailure.split(':');
  const step = (phase: string) => async (): Promise<void> => {
    if (phaseDelayMs > 0) await new Promise((r) => setTimeout(r, phaseDelayMs));
    if (failPhase !== phase) return;
    const message = `Simulated failure in phase ${phase} (SIMULATED_FAILURE=${simulatedFailure}).`;
    throw kind === 'transient' ? new TransientPlatformError(message) : new PlatformError(message);
  };
  return platformOf(step);
}
