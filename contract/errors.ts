/**
 * THE error catalogue: every code a client can receive, declared once with its HTTP
 * status and the message the service sends. Handlers throw `apiError`, the HTTP layer and
 * the local gateway map it to the envelope, and the typed client reads `ErrorCode`. What
 * each code means and its documented example are docs/error-meanings.ts's, which the
 * type there keeps complete: the documentation's text stays out of the functions' bundles.
 * Anything thrown that is not an ApiError is a fault: a generic 500 with the request id.
 * The codes a failed operation carries in its `error` are here too (OPERATION_ERRORS).
 */
import { MAX_BODY_BYTES } from './limits.js';
import type { LimitReason, Phase } from './vocabulary.js';

// A published limit (limits.ts); the 413's message quotes it.
export { MAX_BODY_BYTES };

export interface FieldIssue {
  field: string;
  issue: string;
}

interface ErrorSpec<P> {
  readonly status: number;
  readonly message: (params: P) => string;
}

const code = <P = undefined>(spec: ErrorSpec<P>): ErrorSpec<P> => spec;

export const ERRORS = {
  INVALID_REQUEST: code<{ problem: string }>({
    status: 400,
    message: ({ problem }) => problem,
  }),
  MISSING_API_KEY: code<{ bearer: boolean }>({
    status: 401,
    message: ({ bearer }) =>
      bearer
        ? 'Bearer tokens are not accepted here; send your API key in the X-API-Key header.'
        : 'Send your API key in the X-API-Key header.',
  }),
  INVALID_API_KEY: code({
    status: 401,
    message: () => 'The API key is not valid.',
  }),
  API_KEY_REVOKED: code({
    status: 401,
    message: () => 'The API key has been revoked.',
  }),
  API_KEY_EXPIRED: code<{ expiredAt: string }>({
    status: 401,
    message: ({ expiredAt }) => `The API key expired at ${expiredAt}; create a new key.`,
  }),
  INSUFFICIENT_SCOPE: code<{ scope: string }>({
    status: 403,
    message: ({ scope }) => `The API key lacks the scope this request needs. Required: ${scope}`,
  }),
  MISSING_TOKEN: code<{ apiKey: boolean }>({
    status: 401,
    message: ({ apiKey }) =>
      apiKey
        ? 'API keys are not accepted by the dashboard API; sign in and send your token as Authorization: Bearer.'
        : 'Sign in and send your token as Authorization: Bearer.',
  }),
  INVALID_TOKEN: code({
    status: 401,
    message: () => 'The token is not valid; sign in again.',
  }),
  TOKEN_EXPIRED: code({
    status: 401,
    message: () => 'The token has expired; refresh it or sign in again.',
  }),
  INSUFFICIENT_ROLE: code<{ role: string }>({
    status: 403,
    message: ({ role }) => `Your role does not allow this. Required: ${role}`,
  }),
  API_KEY_NOT_FOUND: code<{ id: string }>({
    status: 404,
    message: ({ id }) => `API key ${id} was not found.`,
  }),
  API_KEY_NOT_ROTATABLE: code<{ id: string; why: 'revoked' | 'expired' | 'rotated'; successor?: string }>({
    status: 409,
    message: ({ id, why, successor }) =>
      why === 'rotated'
        ? `API key ${id} was rotated already (its successor is ${successor}); rotate ${successor} instead.`
        : `API key ${id} is ${why}, so it cannot be rotated; create a new key instead.`,
  }),
  NOT_FOUND: code<{ method: string; path: string }>({
    status: 404,
    message: ({ method, path }) => `No endpoint at ${method} ${path}.`,
  }),
  DEPLOYMENT_NOT_FOUND: code<{ id: string }>({
    status: 404,
    message: ({ id }) => `Deployment ${id} was not found.`,
  }),
  OPERATION_NOT_FOUND: code<{ id: string }>({
    status: 404,
    message: ({ id }) => `Operation ${id} was not found.`,
  }),
  WEBHOOK_NOT_FOUND: code<{ id: string }>({
    status: 404,
    message: ({ id }) => `Webhook ${id} was not found.`,
  }),
  REVISION_NOT_FOUND: code<{ id: string; revision: string }>({
    status: 404,
    message: ({ id, revision }) => `Deployment ${id} has no revision ${revision}.`,
  }),
  ENVIRONMENT_NOT_FOUND: code<{ id: string }>({
    status: 404,
    message: ({ id }) => `Environment ${id} was not found.`,
  }),
  METHOD_NOT_ALLOWED: code<{ method: string; allow: string }>({
    status: 405,
    message: ({ method, allow }) => `${method} is not allowed here. Allowed: ${allow}.`,
  }),
  DEPLOYMENT_NAME_TAKEN: code<{ name: string }>({
    status: 409,
    message: ({ name }) => `A deployment named "${name}" already exists in this organization.`,
  }),
  DEPLOYMENT_ALREADY_DESTROYED: code<{ id: string }>({
    status: 409,
    message: ({ id }) => `Deployment ${id} has already been destroyed.`,
  }),
  DEPLOYMENT_NOT_READY: code<{ id: string; status: string }>({
    status: 409,
    message: ({ id, status }) => `Deployment ${id} is ${status}; this needs it ready.`,
  }),
  OPERATION_IN_PROGRESS: code<{ id: string; operationId: string }>({
    status: 409,
    message: ({ id, operationId }) => `Deployment ${id} has operation ${operationId} in progress; retry when it has ended.`,
  }),
  DEPLOYMENT_HIBERNATED: code<{ id: string }>({
    status: 409,
    message: ({ id }) => `Deployment ${id} is hibernated; wake it first (POST /deployments/${id}/wake).`,
  }),
  OPERATION_NOT_CANCELABLE: code<{ id: string; type: string; status: string; cancelableType: boolean }>({
    status: 409,
    message: (p) => (p.cancelableType ? `Operation ${p.id} is already ${p.status}.` : `A ${p.type} operation cannot be canceled.`),
  }),
  WEBHOOK_LIMIT_REACHED: code<{ limit: number }>({
    status: 409,
    message: ({ limit }) => `An organization may have at most ${limit} webhooks; delete one to add another.`,
  }),
  KEY_LIMIT_REACHED: code<{ limit: number }>({
    status: 409,
    message: ({ limit }) => `An organization may hold at most ${limit} API keys; revoke one to free a place.`,
  }),
  IDEMPOTENCY_KEY_REUSED: code({
    status: 409,
    message: () => 'This Idempotency-Key was already used with a different request.',
  }),
  IDEMPOTENCY_KEY_IN_USE: code({
    status: 409,
    message: () => 'A request with this Idempotency-Key is still in progress; retry shortly to receive its response.',
  }),
  PRECONDITION_FAILED: code<{ ifMatch: string; revision: number }>({
    status: 412,
    message: ({ ifMatch, revision }) => `If-Match ${ifMatch} does not match the current revision "${revision}".`,
  }),
  PAYLOAD_TOO_LARGE: code({
    status: 413,
    message: () => `The request body exceeds ${MAX_BODY_BYTES} bytes.`,
  }),
  // Names the type the route takes first: a PATCH's is the merge patch (decision 42).
  UNSUPPORTED_MEDIA_TYPE: code<{ types: readonly string[] }>({
    status: 415,
    message: ({ types }) =>
      types[0] === 'application/merge-patch+json'
        ? 'Send the request body as a JSON merge patch with Content-Type: application/merge-patch+json (or application/json).'
        : 'Send the request body as JSON with Content-Type: application/json.',
  }),
  MISDIRECTED_REQUEST: code({
    status: 421,
    message: () => 'This server answers only requests addressed to localhost, 127.0.0.1, [::1] or its configured HOST.',
  }),
  RATE_LIMIT_EXCEEDED: code<{ limit: string; retryAfter: number }>({
    status: 429,
    message: ({ limit, retryAfter }) => `Rate limit exceeded: ${limit}. Retry after ${retryAfter} seconds.`,
  }),
  ORGANIZATION_BUSY: code<{ retryAfter: number }>({
    status: 429,
    message: ({ retryAfter }) =>
      `Too many concurrent changes to this organization's deployments; nothing was changed. Retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
  }),
  INTERNAL_ERROR: code<{ operationFailed: boolean }>({
    status: 500,
    message: ({ operationFailed }) =>
      operationFailed
        ? 'The operation could not be started; it has been marked failed.'
        : 'An internal error occurred. Quote the request id if you contact support.',
  }),
} as const;

export type ErrorCode = keyof typeof ERRORS;
export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/** What a code's message is made from. */
export type ErrorParams<C extends ErrorCode> = Parameters<(typeof ERRORS)[C]['message']>[0];
type Params<C extends ErrorCode> = ErrorParams<C>;

export const errorStatus = (c: ErrorCode): number => ERRORS[c].status;

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
