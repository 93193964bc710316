/** Test fixtures: fresh organizations and keys in DynamoDB Local, and handler invocation. */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { saveKey } from '../../functions/adapters/dynamo/api-keys-repo.js';
import { type ApiKeyRecord, generateKey } from '../../functions/core/api-keys.js';
import type { Scope } from '../../functions/core/schemas.js';
import { matchRoute } from '../../functions/lib/router.js';
import { API_PREFIX } from '../../functions/routes.js';
import { loadHandler } from '../../infra/local/api-server.js';
import { assertConforms, compileAllValidators } from './openapi-conformance.js';

// Compile the OpenAPI checks once per test file up front, not inside a test that times an operation.
beforeAll(compileAllValidators);

export const newOrgId = () => `org-${randomUUID().slice(0, 8)}`;

export interface TestKey {
  key: string;
  record: ApiKeyRecord;
}

export async function createKey(
  opts: { orgId?: string; scopes?: Scope[]; expiresAt?: string | null; name?: string } = {},
): Promise<TestKey> {
  const made = generateKey({
    orgId: opts.orgId ?? newOrgId(),
    name: opts.name ?? 'test',
    scopes: opts.scopes,
    expiresAt: opts.expiresAt ?? null,
    now: new Date(),
  });
  await saveKey(made.record);
  return made;
}

export interface CallOptions {
  key?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string;
}

export interface CallResult {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends a request through the route table to the real handler module, as API Gateway would. */
export async function call(method: string, pathAndQuery: string, opts: CallOptions = {}): Promise<CallResult> {
  const url = new URL(API_PREFIX + pathAndQuery, 'http://localhost');
  const match = matchRoute(method, url.pathname);
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['X-API-Key'] = opts.key;
  let body: string | null = null;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const query = Object.fromEntries(url.searchParams);
  const event = {
    resource: match.kind === 'route' ? API_PREFIX + match.route.path : '/{proxy+}',
    path: url.pathname,
    httpMethod: method,
    headers,
    multiValueHeaders: {},
    queryStringParameters: Object.keys(query).length ? query : null,
    multiValueQueryStringParameters: null,
    pathParameters: match.kind === 'route' && Object.keys(match.params).length ? match.params : null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {} as APIGatewayProxyEvent['requestContext'],
  } satisfies APIGatewayProxyEvent;
  const handler = await loadHandler(match.kind === 'route' ? match.route.handler : 'route-not-found');
  const res: APIGatewayProxyResult = await handler(event);
  const outHeaders: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers ?? {})) outHeaders[k.toLowerCase()] = String(v);
  let parsed: unknown = res.body;
  if (outHeaders['content-type']?.startsWith('application/json')) parsed = JSON.parse(res.body);
  // Every response a test sees must be one the OpenAPI document describes.
  assertConforms({ method, path: url.pathname, status: res.statusCode, headers: outHeaders, body: parsed });
  return { status: res.statusCode, headers: outHeaders, body: parsed };
}
