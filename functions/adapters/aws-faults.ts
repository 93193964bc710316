/**
 * AWS's own passing faults, named for the workflow. The SDK retries throttling, 5xx
 * answers and dropped connections a few times by itself; one that outlasts those retries
 * would otherwise reach Step Functions under its own name (or as a bare `Error` for a
 * socket error) and fail the operation. Renamed TransientAwsError, the state machine
 * retries the step with backoff instead, as it does a transient platform error. What
 * counts as passing is the SDK's own classification (@smithy/core/retry).
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

export class TransientAwsError extends Error {
  constructor(cause: Error) {
    super(`A passing AWS fault: ${cause.name}: ${cause.message}`, { cause });
    this.name = 'TransientAwsError';
  }
}

/** What the SDK's own retry strategy counts as passing: throttling, a 5xx, a timeout or a dropped connection. */
export function isTransientAwsFault(e: unknown): e is Error {
  if (!(e instanceof Error)) return false;
  const error = e as Parameters<typeof isThrottlingError>[0];
  return isThrottlingError(error) || isTransientError(error) || isServerError(error);
}

/** Runs a workflow step, renaming a passing AWS fault so the state machine retries the step. */
export async function retriedByWorkflow<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw isTransientAwsFault(e) ? new TransientAwsError(e) : e;
  }
}
