/** Workflow step: the operation succeeded; move it and its deployment to their final states. */
import { completeOperation, operationOf, type StepInput } from '../app/workflow-steps.js';
import { config } from '../lib/config.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async (input: StepInput): Promise<Record<string, never>> => {
  await completeOperation(input, config().appDomain);
  return {};
}, operationOf);
