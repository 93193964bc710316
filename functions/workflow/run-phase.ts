/** Workflow step: enter one phase and do its work on the hosting platform. */
import { simulatedPlatform } from '../adapters/platform/simulated-platform';
import { runPhase, type StepInput } from '../core/workflow-steps';

export async function handler(input: StepInput & { phase: string }): Promise<Record<string, never>> {
  await runPhase(input, simulatedPlatform);
  return {};
}
