/** Workflow step: enter one phase and do its work on the hosting platform (the simulated one). */

import { simulatedPlatform } from '../adapters/platform/simulated-platform.js';
import { runPhase, type StepInput } from '../app/workflow-steps.js';
import type { HostingPlatform } from '../core/platform.js';
import { config } from '../lib/config.js';

let platform: HostingPlatform | undefined;

export async function handler(input: StepInput & { phase: string }): Promise<Record<string, never>> {
  platform ??= simulatedPlatform(config());
  await runPhase(input, platform);
  return {};
}
