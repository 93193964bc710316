/**
 * AWS's own passing faults, named for the workflow. The SDK retries throttling, 5xx
 * answers and dropped connections a few times by itself; one that outlasts those retries
 * would otherwise reach Step Functions under its own name (or as a bare `Error` for a
 * socket error) and fail the operation. Renamed TransientAwsError, the state machine
 * retries the step with backoff instead, as it does a transient platform error.
 */

/** The error names the SDK's retry strategy counts as throttling or transient. */
const TRANSIENT_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'LimitExceededException',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

export class TransientAwsError extends Error {
  constructor(cause: Error) {
    super(`A passing AWS fault: ${cause.name}: ${cause.message}`, { cause });
    this.name = 'TransientAwsError';
  }
}

export function isTransientAwsFault(e: unknown): e is Error {
  if (!(e instanceof Error)) return false;
  const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
  const code = (e as { code?: unknown }).code;
  return TRANSIENT_NAMES.has(e.name) || status >= 500 || status === 429 || (typeof code === 'string' && SOCKET_CODES.has(code));
}

/** Runs a workflow step, renaming a passing AWS fault so the state machine retries the step. */
export async function retriedByWorkflow<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    throw isTransientAwsFault(e) ? new TransientAwsError(e) : e;
  }
}
