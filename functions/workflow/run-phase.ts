// Placeholder replaced by the deployments work (issue 3): the Lambda handler for the 'run-phase' workflow step.
export async function handler(input: unknown): Promise<unknown> {
  return input;
}
