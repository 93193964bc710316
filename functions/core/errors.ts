/**
 * THE error catalogue: every code a client can receive, declared once with its HTTP
 * status, what it means, and the message the service sends. Handlers throw `apiError`,
 * the HTTP layer and the local gateway map it to the envelope, the OpenAPI document
 * shows `message(example)` as each code's example, and the typed client reads `ErrorCode`.
 * Anything thrown that is not an ApiError is a fault: a generic 500 with the request id.
 * The codes a failed operation carries in its `error` are here too (OPERATION_ERRORS).
 */
import type { LimitReason } from './rate-limits.js';
import type { Phase } from './schemas.js';

export interface FieldIssue {
  field: string;
  issue: string;
}

/** The largest request body the API takes (decision 8). */
export const MAX_BODY_BYTES = 65_536;

interface ErrorSpec<P> {
  readonly status: number;
  /** One sentence for the OpenAPI document and the guide. */
  readonly meaning: string;
  readonly message: (params: P) => string;
  /** The parameters of the documented example message. */
  readonly example: P;
}

const code = <P = undefined>(spec: ErrorSpec<P>): ErrorSpec<P> => spec;

const EXAMPLE_DEPLOYMENT = '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10';
const EXAMPLE_OPERATION = 'op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

export const ERRORS = {
  INVALID_REQUEST: code<{ problem: string }>({
    status: 400,
    meaning: 'The request is invalid: a parameter, header or body field; `details` lists each problem.',
    message: ({ problem }) => problem,
    example: { problem: 'The request body is invalid.' },
  }),
  MISSING_API_KEY: code<{ bearer: boolean }>({
    status: 401,
    meaning: 'No X-API-Key header was sent.',
    message: ({ bearer }) =>
      bearer
        ? 'Bearer tokens are not accepted here; send your API key in the X-API-Key header.'
        : 'Send your API key in the X-API-Key header.',
    example: { bearer: false },
  }),
  INVALID_API_KEY: code({
    status: 401,
    meaning: 'The API key is not recognised.',
    message: () => 'The API key is not valid.',
    example: undefined,
  }),
  API_KEY_REVOKED: code({
    status: 401,
    meaning: 'The API key has been revoked.',
    message: () => 'The API key has been revoked.',
    example: undefined,
  }),
  API_KEY_EXPIRED: code<{ expiredAt: string }>({
    status: 401,
    meaning: 'The API key has expired.',
    message: ({ expiredAt }) => `The API key expired at ${expiredAt}; create a new key.`,
    example: { expiredAt: '2026-11-22T06:40:00.000Z' },
  }),
  INSUFFICIENT_SCOPE: code<{ scope: string }>({
    status: 403,
    meaning: 'The API key lacks the scope this endpoint needs; the message names it.',
    message: ({ scope }) => `The API key lacks the scope this request needs. Required: ${scope}`,
    example: { scope: 'deployments:write' },
  }),
  MISSING_TOKEN: code<{ apiKey: boolean }>({
    status: 401,
    meaning: "The dashboard API was called without the signed-in user's token (Authorization: Bearer).",
    message: ({ apiKey }) =>
      apiKey
        ? 'API keys are not accepted by the dashboard API; sign in and send your token as Authorization: Bearer.'
        : 'Sign in and send your token as Authorization: Bearer.',
    example: { apiKey: false },
  }),
  INVALID_TOKEN: code({
    status: 401,
    meaning: 'The bearer token is not one the user pool issued for the dashboard.',
    message: () => 'The token is not valid; sign in again.',
    example: undefined,
  }),
  TOKEN_EXPIRED: code({
    status: 401,
    meaning: 'The bearer token is past its lifetime; the dashboard refreshes it and retries.',
    message: () => 'The token has expired; refresh it or sign in again.',
    example: undefined,
  }),
  INSUFFICIENT_ROLE: code<{ role: string }>({
    status: 403,
    meaning: "The signed-in user's role may not do this; the message names the role needed.",
    message: ({ role }) => `Your role does not allow this. Required: ${role}`,
    example: { role: 'admin' },
  }),
  API_KEY_NOT_FOUND: code<{ id: string }>({
    status: 404,
    meaning: 'The API key does not exist (or belongs to another organization).',
    message: ({ id }) => `API key ${id} was not found.`,
    example: { id: 'key_0a1b2c3d4e5f6a7b8c9d' },
  }),
  API_KEY_NOT_ROTATABLE: code<{ id: string; why: 'revoked' | 'expired' }>({
    status: 409,
    meaning: 'The API key is revoked or expired, so it cannot be rotated (decision 47).',
    message: ({ id, why }) => `API key ${id} is ${why}, so it cannot be rotated; create a new key instead.`,
    example: { id: 'key_0a1b2c3d4e5f6a7b8c9d', why: 'revoked' },
  }),
  NOT_FOUND: code<{ method: string; path: string }>({
    status: 404,
    meaning: 'There is nothing at this path.',
    message: ({ method, path }) => `No endpoint at ${method} ${path}.`,
    example: { method: 'GET', path: '/api/v1/nothing-here' },
  }),
  DEPLOYMENT_NOT_FOUND: code<{ id: string }>({
    status: 404,
    meaning: 'The deployment does not exist (or belongs to another organization).',
    message: ({ id }) => `Deployment ${id} was not found.`,
    example: { id: EXAMPLE_DEPLOYMENT },
  }),
  OPERATION_NOT_FOUND: code<{ id: string }>({
    status: 404,
    meaning: 'The operation does not exist (or belongs to another organization).',
    message: ({ id }) => `Operation ${id} was not found.`,
    example: { id: EXAMPLE_OPERATION },
  }),
  WEBHOOK_NOT_FOUND: code<{ id: string }>({
    status: 404,
    meaning: 'The webhook does not exist (or belongs to another organization).',
    message: ({ id }) => `Webhook ${id} was not found.`,
    example: { id: 'wh_5d0f1c2b3a4e4f6a8b9c0d1e2f3a4b5c' },
  }),
  REVISION_NOT_FOUND: code<{ id: string; revision: string }>({
    status: 404,
    meaning: 'The deployment has no such revision.',
    message: ({ id, revision }) => `Deployment ${id} has no revision ${revision}.`,
    example: { id: EXAMPLE_DEPLOYMENT, revision: '7' },
  }),
  ENVIRONMENT_NOT_FOUND: code<{ id: string }>({
    status: 404,
    meaning: 'The environment does not exist.',
    message: ({ id }) => `Environment ${id} was not found.`,
    example: { id: 'env_staging' },
  }),
  METHOD_NOT_ALLOWED: code<{ method: string; allow: string }>({
    status: 405,
    meaning: 'The path exists but not with this method; see the Allow header.',
    message: ({ method, allow }) => `${method} is not allowed here. Allowed: ${allow}.`,
    example: { method: 'PUT', allow: 'GET, DELETE' },
  }),
  DEPLOYMENT_NAME_TAKEN: code<{ name: string }>({
    status: 409,
    meaning: 'Another deployment of the organization that is not destroyed has this name.',
    message: ({ name }) => `A deployment named "${name}" already exists in this organization.`,
    example: { name: 'etl' },
  }),
  DEPLOYMENT_ALREADY_DESTROYED: code<{ id: string }>({
    status: 409,
    meaning: 'The deployment is already destroyed.',
    message: ({ id }) => `Deployment ${id} has already been destroyed.`,
    example: { id: EXAMPLE_DEPLOYMENT },
  }),
  DEPLOYMENT_NOT_READY: code<{ id: string; status: string }>({
    status: 409,
    meaning: 'The deployment is not ready.',
    message: ({ id, status }) => `Deployment ${id} is ${status}; this needs it ready.`,
    example: { id: EXAMPLE_DEPLOYMENT, status: 'provisioning' },
  }),
  OPERATION_IN_PROGRESS: code<{ id: string; operationId: string }>({
    status: 409,
    meaning:
      'An operation on the deployment is queued or running (for a dag sync, an app user or a rollback: a configuration update); `operation_id` names it. Wait for it, then retry.',
    message: ({ id, operationId }) => `Deployment ${id} has operation ${operationId} in progress; retry when it has ended.`,
    example: { id: EXAMPLE_DEPLOYMENT, operationId: EXAMPLE_OPERATION },
  }),
  OPERATION_NOT_CANCELABLE: code<{ id: string; type: string; status: string; cancelableType: boolean }>({
    status: 409,
    meaning: 'The operation is finished, or is a destroy, and cannot be canceled.',
    message: (p) => (p.cancelableType ? `Operation ${p.id} is already ${p.status}.` : `A ${p.type} operation cannot be canceled.`),
    example: { id: EXAMPLE_OPERATION, type: 'deployment.create', status: 'succeeded', cancelableType: true },
  }),
  WEBHOOK_LIMIT_REACHED: code<{ limit: number }>({
    status: 409,
    meaning: 'The organization already has the most webhooks it may have; delete one first.',
    message: ({ limit }) => `An organization may have at most ${limit} webhooks; delete one to add another.`,
    example: { limit: 10 },
  }),
  KEY_LIMIT_REACHED: code<{ limit: number }>({
    status: 409,
    meaning: 'The organization already holds the most API keys it may (revoked keys and rotated ones do not count); revoke one first.',
    message: ({ limit }) => `An organization may hold at most ${limit} API keys; revoke one to free a place.`,
    example: { limit: 100 },
  }),
  IDEMPOTENCY_KEY_REUSED: code({
    status: 409,
    meaning: 'This Idempotency-Key was used with a different request in the last 24 hours.',
    message: () => 'This Idempotency-Key was already used with a different request.',
    example: undefined,
  }),
  IDEMPOTENCY_KEY_IN_USE: code({
    status: 409,
    meaning: 'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds to get its response.',
    message: () => 'A request with this Idempotency-Key is still in progress; retry shortly to receive its response.',
    example: undefined,
  }),
  PRECONDITION_FAILED: code<{ ifMatch: string; revision: number }>({
    status: 412,
    meaning: 'If-Match is not `"<revision>"` of the current revision, nor `*`: read the deployment again.',
    message: ({ ifMatch, revision }) => `If-Match ${ifMatch} does not match the current revision "${revision}".`,
    example: { ifMatch: '"2"', revision: 3 },
  }),
  PAYLOAD_TOO_LARGE: code({
    status: 413,
    // Not toLocaleString: formatting a number loads ICU's locale data, some 20 ms of every cold start.
    meaning: `The request body is over ${MAX_BODY_BYTES / 1024} KiB (${MAX_BODY_BYTES} bytes).`,
    message: () => `The request body exceeds ${MAX_BODY_BYTES} bytes.`,
    example: undefined,
  }),
  UNSUPPORTED_MEDIA_TYPE: code({
    status: 415,
    meaning: 'The request body is not sent as Content-Type: application/json (or, for PATCH, application/merge-patch+json).',
    message: () => 'Send the request body as JSON with Content-Type: application/json.',
    example: undefined,
  }),
  MISDIRECTED_REQUEST: code({
    status: 421,
    meaning:
      'The local stack (npm start) answers only requests addressed to localhost, its loopback addresses or its HOST; another name in the Host header is refused (DNS rebinding).',
    message: () => 'This server answers only requests addressed to localhost, 127.0.0.1, [::1] or its configured HOST.',
    example: undefined,
  }),
  RATE_LIMIT_EXCEEDED: code<{ limit: string; retryAfter: number }>({
    status: 429,
    meaning: 'A rate limit is exceeded; wait Retry-After seconds.',
    message: ({ limit, retryAfter }) => `Rate limit exceeded: ${limit}. Retry after ${retryAfter} seconds.`,
    example: { limit: 'the burst limit of 100 requests per minute for this API key', retryAfter: 60 },
  }),
  ORGANIZATION_BUSY: code<{ retryAfter: number }>({
    status: 429,
    meaning:
      "Too many changes to the organization's deployments at once: this one could not be recorded in time and nothing was changed; retry after Retry-After seconds.",
    message: ({ retryAfter }) =>
      `Too many concurrent changes to this organization's deployments; nothing was changed. Retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    example: { retryAfter: 1 },
  }),
  INTERNAL_ERROR: code<{ operationFailed: boolean }>({
    status: 500,
    meaning:
      'An unexpected fault; quote the request id to support. With `operation_id`: the operation was recorded and then marked failed.',
    message: ({ operationFailed }) =>
      operationFailed
        ? 'The operation could not be started; it has been marked failed.'
        : 'An internal error occurred. Quote the request id if you contact support.',
    example: { operationFailed: false },
  }),
} as const;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

type Params<C extends ErrorCode> = Parameters<(typeof ERRORS)[C]['message']>[0];

export const errorStatus = (c: ErrorCode): number => ERRORS[c].status;
export const errorMeaning = (c: ErrorCode): string => ERRORS[c].meaning;
/** The message the service sends for a code, with its documented example parameters. */
export const exampleMessage = (c: ErrorCode): string => (ERRORS[c].message as (p: unknown) => string)(ERRORS[c].example);

export interface ApiErrorOptions {
  details?: FieldIssue[];
  operationId?: string;
  headers?: Record<string, string>;
  /** A 429's limit (core/rate-limits.ts): what the answer counts as in the throttling metric, never sent. */
  limit?: LimitReason;
}

/** An error a client may see: its code, the catalogue's status, and a message built from the catalogue. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERRORS[code].status;
  }
}

/** Builds the ApiError for a code, its message from the catalogue. */
export function apiError<C extends ErrorCode>(
  c: C,
  ...[params, options]: Params<C> extends undefined
    ? [params?: undefined, options?: ApiErrorOptions]
    : [params: Params<C>, options?: ApiErrorOptions]
): ApiError {
  return new ApiError(c, (ERRORS[c].message as (p: unknown) => string)(params), options);
}

export const invalidRequest = (problem: string, details?: FieldIssue[]) =>
  apiError('INVALID_REQUEST', { problem }, details ? { details } : {});

/** The fault every unexpected error becomes: nothing of it reaches the client but the request id. */
export const internalError = (operationId?: string) =>
  apiError('INTERNAL_ERROR', { operationFailed: operationId !== undefined }, operationId ? { operationId } : {});

/**
 * The codes of a failed operation's `error`: what went wrong during the work, never an
 * HTTP answer (the request that started the work had its own). Each with its meaning;
 * the API guide lists exactly these (test/unit/api-guide.test.ts).
 */
export const OPERATION_ERRORS = {
  '<PHASE>_FAILED':
    'The named phase failed, e.g. `PROVISIONING_DB_FAILED`, `DESTROYING_INFRASTRUCTURE_FAILED`, `SYNCING_DAGS_FAILED`, `PROVISIONING_USER_FAILED`. The message explains it when the platform gave a reason.',
  OPERATION_TIMED_OUT: 'A phase did not finish within its limit (six hours by default); the message names the phase.',
  OPERATION_INTERRUPTED: 'The workflow running the operation stopped unexpectedly.',
  WORKFLOW_START_FAILED: 'The workflow could not be started (the request that created it got `500` with `operation_id`).',
} as const;

/** `<PHASE>_FAILED`, one code per phase. */
export type PhaseFailedCode = `${Uppercase<Phase>}_FAILED`;
export type OperationErrorCode = PhaseFailedCode | Exclude<keyof typeof OPERATION_ERRORS, '<PHASE>_FAILED'>;

export interface OperationError {
  code: OperationErrorCode;
  message: string;
  /** Decision 45: the phase it failed in, and whether sending the same request again may succeed. */
  phase?: Phase;
  retryable?: boolean;
}

/**
 * Whether a failure with this code may go away if the request is sent again, when the
 * failure itself does not say (a `<PHASE>_FAILED` says: see app/workflow-steps.ts): a
 * timeout, a workflow that stopped or did not start are; a phase's failure is not.
 */
const RETRYABLE_CODES: readonly string[] = ['OPERATION_TIMED_OUT', 'OPERATION_INTERRUPTED', 'WORKFLOW_START_FAILED'];
export const retryableCode = (code: string): boolean => RETRYABLE_CODES.includes(code);

/** A failed operation's `error` as shown (decision 45); one stored before it reads with the phase the operation stopped in. */
export const errorView = (e: OperationError, phase: Phase): Required<OperationError> => ({
  code: e.code,
  message: e.message,
  phase: e.phase ?? phase,
  retryable: e.retryable ?? retryableCode(e.code),
});

/** The code of an operation that failed in `phase`. */
export const phaseFailed = (phase: Phase): PhaseFailedCode => `${phase.toUpperCase() as Uppercase<Phase>}_FAILED`;
