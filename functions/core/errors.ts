/**
 * Every error a client can see is an ApiError: it carries its HTTP status and code,
 * and is mapped to the error envelope in exactly one place (lib/http.ts). Anything
 * else thrown is a fault and becomes a generic 500.
 */
export interface FieldIssue {
  field: string;
  issue: string;
}

export interface ApiErrorOptions {
  details?: FieldIssue[];
  operationId?: string;
  headers?: Record<string, string>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const invalidRequest = (message: string, details?: FieldIssue[]) =>
  new ApiError(400, 'INVALID_REQUEST', message, details ? { details } : {});
export const deploymentNotFound = (id: string) =>
  new ApiError(404, 'DEPLOYMENT_NOT_FOUND', `Deployment ${id} was not found.`);
export const operationNotFound = (id: string) =>
  new ApiError(404, 'OPERATION_NOT_FOUND', `Operation ${id} was not found.`);
export const conflict = (code: string, message: string) => new ApiError(409, code, message);
export const rateLimited = (message: string, headers: Record<string, string>) =>
  new ApiError(429, 'RATE_LIMIT_EXCEEDED', message, { headers });

/** A fault while starting work the client asked for; the client gets the operation id to inspect. */
export class OperationStartError extends ApiError {
  constructor(operationId: string) {
    super(500, 'INTERNAL_ERROR', 'The operation could not be started; it has been marked failed.', { operationId });
  }
}

/** Another request with the same Idempotency-Key committed first; its response is replayed. */
export class IdempotencyRace extends Error {
  constructor() {
    super('Idempotency key was claimed concurrently');
    this.name = 'IdempotencyRace';
  }
}
