// Placeholder replaced by the deployments work (issue 3): the Lambda handler for the 'fail-operation' workflow step.
export async function handler(input: unknown): Promise<unknown> {
  return input;
}
