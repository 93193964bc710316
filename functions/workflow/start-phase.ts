/** Workflow step: enter one phase and start its job on the hosting platform (never waits for it). */
import { retriedByWorkflow } from '../adapters/aws-faults.js';
import { hostingPlatform } from '../adapters/platform/hosting-platform.js';
import { type PhaseInput, type PhaseState, startPhase } from '../app/workflow-phases.js';
import { operationOf } from '../app/workflow-steps.js';
import { config } from '../lib/config.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async (input: PhaseInput): Promise<PhaseState> => {
  const { phaseTimeoutSeconds: timeoutSeconds, phaseCheckSeconds: checkSeconds } = config();
  return retriedByWorkflow(() => startPhase(input, hostingPlatform(), { timeoutSeconds, checkSeconds }));
}, operationOf);
