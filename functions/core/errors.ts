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

/**
 * The HTTP status of every error code the API can answer with. The OpenAPI document,
 * the response-conformance checks and the typed client read it; a code missing here
 * fails the document build.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  API_KEY_EXPIRED: 401,
  API_KEY_REVOKED: 401,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  DEPLOYMENT_NOT_FOUND: 404,
  OPERATION_NOT_FOUND: 404,
  ENVIRONMENT_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  DEPLOYMENT_NAME_TAKEN: 409,
  DEPLOYMENT_ALREADY_DESTROYED: 409,
  DEPLOYMENT_NOT_READY: 409,
  OPERATION_NOT_CANCELABLE: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
} as const satisfies Record<string, number>;
export type ErrorCode = keyof typeof ERROR_STATUS;

export const invalidRequest = (message: string, details?: FieldIssue[]) =>
  new ApiError(400, 'INVALID_REQUEST', message, details ? { details } : {});
export const deploymentNotFound = (id: string) => new ApiError(404, 'DEPLOYMENT_NOT_FOUND', `Deployment ${id} was not found.`);
export const operationNotFound = (id: string) => new ApiError(404, 'OPERATION_NOT_FOUND', `Operation ${id} was not found.`);
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
