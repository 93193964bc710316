/**
 * The one middleware stack every HTTP handler runs in, so that handlers state only
 * their intent: request id, authentication, rate limit, scope, input parsing and
 * validation, idempotency replay, the response envelope, the usage log, and the
 * mapping of errors to HTTP (the only place that happens).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { z } from 'zod';
import { findKeyByHash } from '../adapters/dynamo/api-keys-repo.js';
import {
  findIdempotencyRecord,
  type IdempotencyClaim,
  rememberResponse,
  type StoredResponse,
} from '../adapters/dynamo/idempotency-repo.js';
import { consumeRequest } from '../adapters/dynamo/rate-limit-repo.js';
import { recordUsage } from '../adapters/dynamo/usage-repo.js';
import * as apiKeys from '../core/api-keys.js';
import { ApiError, type FieldIssue, IdempotencyRace, invalidRequest } from '../core/errors.js';
import { rateLimitHeaders } from '../core/rate-limits.js';
import type { Scope } from '../core/schemas.js';
import { API_PREFIX, type Route } from '../routes.js';
import { config } from './config.js';
import { errorFields, log } from './log.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const MAX_BODY_BYTES = 65_536;
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface Caller {
  keyId: string;
  orgId: string;
  scopes: readonly Scope[];
  record: apiKeys.ApiKeyRecord;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RequestContext<R extends Route> {
  requestId: string;
  now: Date;
  /** Present on every route that needs a key. */
  caller: R['access'] extends 'public' ? undefined : Caller;
  params: Out<R['params']>;
  query: Out<R['query']>;
  body: Out<R['body']>;
  /** Set when the client sent an Idempotency-Key (POST only). */
  idempotency?: IdempotencyClaim;
  event: APIGatewayProxyEvent;
}

/** A JSON success: `data` goes under the envelope's `data`. */
export interface JsonResult {
  status?: number;
  data: unknown;
  headers?: Record<string, string>;
}

/** A response that is not the JSON envelope (the docs page and its assets). */
export interface RawResult {
  raw: { status?: number; body: string; contentType: string; headers?: Record<string, string> };
}

export type HandlerResult = JsonResult | RawResult;

export type LambdaHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** Lower-cased header map (API Gateway keeps the client's casing). */
export function headersOf(event: APIGatewayProxyEvent): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

/** Decision 2: the caller's X-Request-Id when it is a safe token, else a fresh id. */
export function requestIdFrom(given: string | undefined): string {
  return given && SAFE_REQUEST_ID.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
}

export const requestIdOf = (event: APIGatewayProxyEvent): string => requestIdFrom(headersOf(event)['x-request-id']);

export function errorResponse(error: unknown, requestId: string, extraHeaders: Record<string, string> = {}): APIGatewayProxyResult {
  const e =
    error instanceof ApiError
      ? error
      : new ApiError(500, 'INTERNAL_ERROR', 'An internal error occurred. Quote the request id if you contact support.');
  const body = {
    error: {
      code: e.code,
      message: e.message,
      request_id: requestId,
      ...(e.options.details ? { details: e.options.details } : {}),
      ...(e.options.operationId ? { operation_id: e.options.operationId } : {}),
    },
  };
  return {
    statusCode: e.status,
    headers: { ...extraHeaders, ...e.options.headers, 'Content-Type': JSON_CONTENT_TYPE, 'X-Request-Id': requestId },
    body: JSON.stringify(body),
  };
}

export function jsonResponse(result: JsonResult, requestId: string, extraHeaders: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode: result.status ?? 200,
    headers: { ...extraHeaders, ...result.headers, 'Content-Type': JSON_CONTENT_TYPE, 'X-Request-Id': requestId },
    body: JSON.stringify({ data: result.data }),
  };
}

/** zod issues as the `details` list of decision 1. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ field: [path, k].filter(Boolean).join('.'), issue: 'unknown field' }));
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) return [{ field: path, issue: 'is required' }];
    if (issue.code === 'invalid_value') return [{ field: path, issue: `must be one of: ${issue.values.join(', ')}` }];
    return [{ field: path || '(body)', issue: issue.message }];
  });
}

function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw invalidRequest(`The ${what} is invalid.`, fieldIssues(result.error));
}

function parseBody(route: Route, event: APIGatewayProxyEvent, headers: Record<string, string>): unknown {
  if (!route.body) return undefined;
  const raw = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : '';
  if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) {
    throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  const contentType = headers['content-type'];
  const takesNoBody = route.body instanceof z.ZodObject && Object.keys(route.body.shape).length === 0;
  if (contentType === undefined && raw === '' && takesNoBody) return parse(route.body, {}, 'request body');
  if (contentType?.split(';')[0]?.trim().toLowerCase() !== 'application/json') {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with Content-Type: application/json.');
  }
  if (raw.trim() === '' && takesNoBody) return parse(route.body, {}, 'request body');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw invalidRequest('The request body is not valid JSON.');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw invalidRequest('The request body must be a JSON object.');
  }
  return parse(route.body, json, 'request body');
}

/** Stable JSON (sorted keys) so the same body always has the same fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function idempotencyClaim(
  event: APIGatewayProxyEvent,
  headers: Record<string, string>,
  caller: Caller | undefined,
  body: unknown,
): IdempotencyClaim | undefined {
  const key = headers['idempotency-key'];
  if (key === undefined || event.httpMethod !== 'POST' || !caller) return undefined;
  if (key.length < 1 || key.length > 255) {
    throw invalidRequest('The Idempotency-Key header must be 1-255 characters.', [
      { field: 'Idempotency-Key', issue: 'must be 1-255 characters' },
    ]);
  }
  const fingerprint = createHash('sha256')
    .update(`${event.httpMethod} ${event.path} ${canonical(body ?? {})}`)
    .digest('hex');
  return { orgId: caller.orgId, key, fingerprint };
}

function replay(stored: StoredResponse, claim: IdempotencyClaim, fingerprint: string): JsonResult {
  if (fingerprint !== claim.fingerprint) {
    throw new ApiError(409, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request.');
  }
  return { status: stored.status, data: stored.data, headers: { ...stored.headers, 'Idempotent-Replayed': 'true' } };
}

async function authenticate(headers: Record<string, string>, _now: Date): Promise<Caller> {
  const key = headers['x-api-key'];
  if (key === undefined || key === '') throw apiKeys.missingKey(/^bearer\s/i.test(headers.authorization ?? ''));
  if (!apiKeys.isWellFormedKey(key)) throw apiKeys.invalidKey();
  const hash = apiKeys.hashKey(key);
  const record = await findKeyByHash(hash);
  if (!record || !apiKeys.sameHash(record.hash, hash)) throw apiKeys.invalidKey();
  return { keyId: record.id, orgId: record.org_id, scopes: record.scopes, record };
}

/** Wraps an endpoint's intent in the shared stack, producing the Lambda handler. */
export function httpHandler<R extends Route>(route: R, intent: (ctx: RequestContext<R>) => Promise<HandlerResult>): LambdaHandler {
  return async (event) => {
    const started = Date.now();
    const now = new Date();
    const requestId = requestIdOf(event);
    const headers = headersOf(event);
    let caller: Caller | undefined;
    let limitHeaders: Record<string, string> = {};
    let response: APIGatewayProxyResult;
    try {
      if (route.access !== 'public') {
        caller = await authenticate(headers, now);
        apiKeys.checkKeyUsable(caller.record, now);
        const limits = config().limits;
        const usage = await consumeRequest(caller.keyId, limits, now);
        limitHeaders = rateLimitHeaders(limits, usage, now);
        if (route.access !== 'key') apiKeys.checkScope(caller.scopes, route.access);
      }
      const params = route.params ? parse(route.params, event.pathParameters ?? {}, 'path') : undefined;
      const query = route.query ? parse(route.query, event.queryStringParameters ?? {}, 'query') : undefined;
      const body = parseBody(route, event, headers);
      const idempotency = idempotencyClaim(event, headers, caller, body);
      const ctx = { requestId, now, caller, params, query, body, idempotency, event } as RequestContext<R>;
      response = await run(intent, ctx, limitHeaders);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) log.error('request failed', { request_id: requestId, ...errorFields(e) });
      response = errorResponse(e, requestId, limitHeaders);
    }
    const routeTemplate = `${route.method} ${API_PREFIX}${route.path}`;
    if (caller) await logUsage(caller, event.httpMethod, route, response.statusCode, requestId, now);
    log.info('request', {
      request_id: requestId,
      route: routeTemplate,
      status: response.statusCode,
      duration_ms: Date.now() - started,
      ...(caller ? { key_id: caller.keyId, org_id: caller.orgId } : {}),
    });
    return response;
  };
}

async function run<R extends Route>(
  intent: (ctx: RequestContext<R>) => Promise<HandlerResult>,
  ctx: RequestContext<R>,
  limitHeaders: Record<string, string>,
): Promise<APIGatewayProxyResult> {
  const claim = ctx.idempotency;
  if (claim) {
    const prior = await findIdempotencyRecord(claim.orgId, claim.key, ctx.now);
    if (prior) return jsonResponse(replay(prior.response, claim, prior.fingerprint), ctx.requestId, limitHeaders);
  }
  let result: HandlerResult;
  try {
    result = await intent(ctx);
  } catch (e) {
    if (!(e instanceof IdempotencyRace) || !claim) throw e;
    const winner = await findIdempotencyRecord(claim.orgId, claim.key, ctx.now);
    if (!winner) throw e;
    result = replay(winner.response, claim, winner.fingerprint);
  }
  if ('raw' in result) {
    return {
      statusCode: result.raw.status ?? 200,
      headers: { ...result.raw.headers, 'Content-Type': result.raw.contentType, 'X-Request-Id': ctx.requestId },
      body: result.raw.body,
    };
  }
  // A success not already stored by the work's own transaction (cancel) is stored here.
  const status = result.status ?? 200;
  if (claim && status < 300 && result.headers?.['Idempotent-Replayed'] === undefined) {
    await rememberResponse(claim, { status, data: result.data, headers: result.headers ?? {} }, ctx.now);
  }
  return jsonResponse(result, ctx.requestId, limitHeaders);
}

async function logUsage(caller: Caller, method: string, route: Route, status: number, requestId: string, now: Date): Promise<void> {
  try {
    await recordUsage({
      at: now.toISOString(),
      method,
      route: `${API_PREFIX}${route.path}`,
      status,
      key_id: caller.keyId,
      org_id: caller.orgId,
      request_id: requestId,
    });
  } catch (e) {
    // The usage log must not turn a served request into a failure; the gap is logged.
    log.error('usage log write failed', { request_id: requestId, key_id: caller.keyId, ...errorFields(e) });
  }
}
