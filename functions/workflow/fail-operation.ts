/** Workflow step (the Catch path): record the failure on the operation and its deployment. */
import { type Failure, failOperation, type StepInput } from '../app/workflow-steps.js';

export async function handler(input: StepInput & { failure?: Failure }): Promise<Record<string, never>> {
  await failOperation(input);
  return {};
}
