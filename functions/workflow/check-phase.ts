/** Workflow step: ask the hosting platform about the phase's job, and when to ask again. */
import { retriedByWorkflow } from '../adapters/aws-faults.js';
import { hostingPlatform } from '../adapters/platform/hosting-platform.js';
import { checkPhase, type PhaseInput, type PhaseState } from '../app/workflow-phases.js';
import { operationOf } from '../app/workflow-steps.js';
import type { JobHandle } from '../core/platform.js';
import { config } from '../lib/config.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async (input: PhaseInput & { handle: JobHandle }): Promise<PhaseState> => {
  const { phaseTimeoutSeconds: timeoutSeconds, phaseCheckSeconds: checkSeconds } = config();
  return retriedByWorkflow(() => checkPhase(input, hostingPlatform(), { timeoutSeconds, checkSeconds }));
}, operationOf);
