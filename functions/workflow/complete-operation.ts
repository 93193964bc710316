/** Workflow step: the operation succeeded; move it and its deployment to their final states. */
import { completeOperation, type StepInput } from '../app/workflow-steps.js';
import { config } from '../lib/config.js';

export async function handler(input: StepInput): Promise<Record<string, never>> {
  await completeOperation(input, config().appDomain);
  return {};
}
