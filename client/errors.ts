/** The errors the client throws. */
import type { ErrorCode, FieldIssue } from '../contract/errors.js';
import type { Operation } from '../contract/schemas.js';

export type { ErrorCode, FieldIssue };

/** A code of the API's error catalogue, or the client's own for an answer that is not the error envelope. */
export type ErrorResponseCode = ErrorCode | 'UNEXPECTED_RESPONSE';

/** An answer from the API that is not a success: the error envelope, typed. */
export class ErrorResponse extends Error {
  override readonly name = 'ErrorResponse';
  readonly status: number;
  /** The API's error code, e.g. DEPLOYMENT_NOT_FOUND; UNEXPECTED_RESPONSE when the body was not the envelope. */
  readonly code: ErrorResponseCode;
  /** The request id (error.request_id, or the X-Request-Id header). */
  readonly requestId: string | undefined;
  /** error.operation_id, when the error concerns an operation that was created. */
  readonly operationId: string | undefined;
  /** Seconds to wait, from the Retry-After header (429). */
  readonly retryAfter: number | undefined;
  /** Per-field problems of a 400 INVALID_REQUEST. */
  readonly details: FieldIssue[] | undefined;

  constructor(init: {
    status: number;
    code: ErrorResponseCode;
    message: string;
    requestId?: string;
    operationId?: string;
    retryAfter?: number;
    details?: FieldIssue[];
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.operationId = init.operationId;
    this.retryAfter = init.retryAfter;
    this.details = init.details;
  }
}

/** The request never got an HTTP answer (connection refused or dropped, DNS, client-side timeout). */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(
    message: string,
    /** The short reason, e.g. "connect ECONNREFUSED 127.0.0.1:3000". */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** waitForOperation gave up before the operation reached a terminal status. */
export class OperationTimeoutError extends Error {
  override readonly name = 'OperationTimeoutError';
  constructor(
    readonly operationId: string,
    readonly elapsedMs: number,
    /** The operation as last seen, if any poll succeeded. */
    readonly lastSeen: Operation | undefined,
  ) {
    const seen = lastSeen ? ` Last seen: ${lastSeen.status}, phase ${lastSeen.progress.phase}.` : '';
    super(
      `Gave up waiting for operation ${operationId} after ${formatDuration(elapsedMs)}.${seen} It may still finish; check it with GET /api/v1/operations/${operationId}.`,
    );
  }
}

export function formatDuration(ms: number): string {
  const total = Math.round(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h ? `${h}h${String(m).padStart(2, '0')}m${String(s).padStart(2, '0')}s` : m ? `${m}m${String(s).padStart(2, '0')}s` : `${s}s`;
}
