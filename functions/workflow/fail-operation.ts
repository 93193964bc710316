/** Workflow step (the Catch path): record the failure on the operation and its deployment. */
import { type Failure, failOperation, operationOf, type StepInput } from '../app/workflow-steps.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async (input: StepInput & { failure?: Failure }): Promise<Record<string, never>> => {
  await failOperation(input);
  return {};
}, operationOf);
