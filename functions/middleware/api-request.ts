/**
 * What the middlewares of one API request share. Middy hands the handler only the event
 * and the Lambda context, so the request's state rides on the context as `api`.
 */
import type { Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { DashboardUser } from '../../contract/dashboard-users.js';
import type { Scope } from '../../contract/schemas.js';
import type { IdempotencyClaim, StoredResponse } from '../adapters/dynamo/idempotency-store.js';
import type { ApiKeyRecord } from '../core/api-keys.js';
import type { Deprecation } from '../core/deprecations.js';
import type { Actor } from '../core/events.js';

export interface Caller {
  keyId: string;
  orgId: string;
  scopes: readonly Scope[];
  /** The key as stored before this request: `last_used_at` is its previous use (decision 40). */
  record: ApiKeyRecord;
  /** The author of this request's changes: its key (decision 46). */
  actor: Actor;
}

export interface RequestState {
  requestId: string;
  /** When the request arrived: one instant for every decision it makes (limits, expiry, timestamps). */
  now: Date;
  /** The route: its method and path template (`/api/v1/deployments/{deployment_id}`), or the path itself when no route took it. */
  route: { method: string; path: string };
  caller?: Caller;
  /** The signed-in user, on the dashboard API (which takes no API key). */
  user?: DashboardUser;
  /** The deprecated features this request uses (decision 44). */
  deprecations?: readonly Deprecation[];
  /** The per-key limit headers, once the key was counted (decision 3). */
  limitHeaders: Record<string, string>;
  /** Validated path, query and body. */
  input: { params?: unknown; query?: unknown; body?: unknown };
  /** This request's claim on its Idempotency-Key. */
  idempotency?: IdempotencyClaim;
  /** The stored first response this request repeats (decision 16), opened if it was sealed. */
  replay?: Omit<StoredResponse, 'sealed'>;
}

export type ApiContext = Context & { api: RequestState };

/** The intent's result until the envelope middleware turns it into the wire response. */
export type ApiResponse = IntentResult | APIGatewayProxyResult;
export type ApiRequest = Request<APIGatewayProxyEvent, ApiResponse, Error, ApiContext>;

/** The wire response, once there is one (after the envelope, or from the error mapping). */
export const wireResponse = (response: ApiResponse | null | undefined): APIGatewayProxyResult | undefined =>
  response && 'statusCode' in response ? response : undefined;

/** The intent's result, before the envelope. */
export const intentResult = (response: ApiResponse | null | undefined): IntentResult | undefined =>
  response && !('statusCode' in response) ? response : undefined;

/** A middleware of this stack: each phase gets the shared request. */
export interface ApiMiddleware {
  before?: (request: ApiRequest) => Promise<void> | void;
  after?: (request: ApiRequest) => Promise<void> | void;
  onError?: (request: ApiRequest) => Promise<void> | void;
}

/** A successful result of an endpoint's intent: `data` goes under the envelope. */
export interface JsonResult {
  status?: number;
  data: unknown;
  headers?: Record<string, string>;
}

/** A result that is not the JSON envelope (the docs page, its assets, the OpenAPI document). */
export interface RawResult {
  raw: { status?: number; body: string; contentType: string; headers?: Record<string, string> };
}

export type IntentResult = JsonResult | RawResult;
