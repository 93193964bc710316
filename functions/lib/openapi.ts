/**
 * The OpenAPI 3.1 document, generated from the route table and the zod schemas: every
 * path, parameter, body, success and error response, header and scope below is derived
 * from `routes.ts`, `core/schemas.ts` and `ERROR_STATUS`; what is written here by hand is
 * prose and examples. Built once per process (`openApiDocument()`).
 */
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type RouteConfig,
  type ZodContentObject,
  zodToOpenAPIRegistry,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';
import * as s from '../core/schemas.js';
import { type Access, API_PREFIX, type Route, type RouteId, routes } from '../routes.js';
import { config } from './config.js';
import { DOCS_ASSET_NAMES, docsAssetContentType } from './docs-assets.js';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export const SECURITY_SCHEME = 'ApiKeyAuth';

/** Error codes every route that needs a key can answer with, besides its own. */
export const KEYED_ERRORS: readonly ErrorCode[] = [
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'API_KEY_REVOKED',
  'API_KEY_EXPIRED',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
];
/** ...and every route that needs a scope. */
export const SCOPED_ERRORS: readonly ErrorCode[] = ['INSUFFICIENT_SCOPE'];

/** The error codes a route can answer with, in status order. */
export function errorCodesOf(route: Route): ErrorCode[] {
  const own = (route.errors ?? []).map((code) => {
    if (!(code in ERROR_STATUS))
      throw new Error(`Route ${route.method} ${route.path} lists error code ${code}, which has no status in ERROR_STATUS`);
    return code as ErrorCode;
  });
  const common =
    route.access === 'public' ? ['INTERNAL_ERROR' as const] : [...KEYED_ERRORS, ...(route.access === 'key' ? [] : SCOPED_ERRORS)];
  return [...new Set([...own, ...common])].sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b]);
}

export function scopesOf(access: Access): readonly s.Scope[] {
  return typeof access === 'string' ? [] : access;
}

// ---- prose ---------------------------------------------------------------------

const ERROR_MEANING: Record<ErrorCode, string> = {
  INVALID_REQUEST: 'The request is invalid: a parameter, header or body field; `details` lists each problem.',
  MISSING_API_KEY: 'No X-API-Key header was sent.',
  INVALID_API_KEY: 'The API key is not recognised.',
  API_KEY_EXPIRED: 'The API key has expired.',
  API_KEY_REVOKED: 'The API key has been revoked.',
  INSUFFICIENT_SCOPE: 'The API key lacks the scope this endpoint needs; the message names it.',
  NOT_FOUND: 'There is nothing at this path.',
  DEPLOYMENT_NOT_FOUND: 'The deployment does not exist (or belongs to another organization).',
  OPERATION_NOT_FOUND: 'The operation does not exist (or belongs to another organization).',
  ENVIRONMENT_NOT_FOUND: 'The environment does not exist.',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method; see the Allow header.',
  DEPLOYMENT_NAME_TAKEN: 'Another deployment of the organization that is not destroyed has this name.',
  DEPLOYMENT_ALREADY_DESTROYED: 'The deployment is already destroyed.',
  DEPLOYMENT_NOT_READY: 'The deployment is not ready.',
  OPERATION_NOT_CANCELABLE: 'The operation is finished, or is a destroy, and cannot be canceled.',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was used with a different request in the last 24 hours.',
  PAYLOAD_TOO_LARGE: 'The request body is over 65,536 bytes.',
  UNSUPPORTED_MEDIA_TYPE: 'The request body is not sent as Content-Type: application/json.',
  RATE_LIMIT_EXCEEDED: 'A rate limit is exceeded; wait Retry-After seconds.',
  INTERNAL_ERROR: 'An unexpected fault; quote the request id to support.',
};

const ERROR_EXAMPLE_MESSAGE: Record<ErrorCode, string> = {
  INVALID_REQUEST: 'The request body is invalid.',
  MISSING_API_KEY: 'Send your API key in the X-API-Key header.',
  INVALID_API_KEY: 'The API key is not valid.',
  API_KEY_EXPIRED: 'The API key expired at 2026-11-01T00:00:00.000Z; create a new key.',
  API_KEY_REVOKED: 'The API key has been revoked.',
  INSUFFICIENT_SCOPE: 'The API key lacks the scope this request needs. Required: deployments:write',
  NOT_FOUND: 'No endpoint at GET /api/v1/nothing.',
  DEPLOYMENT_NOT_FOUND: 'Deployment 3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10 was not found.',
  OPERATION_NOT_FOUND: 'Operation op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d was not found.',
  ENVIRONMENT_NOT_FOUND: 'Environment env_other was not found.',
  METHOD_NOT_ALLOWED: 'PUT is not allowed here. Allowed: GET, POST.',
  DEPLOYMENT_NAME_TAKEN: 'A deployment named analytics already exists.',
  DEPLOYMENT_ALREADY_DESTROYED: 'Deployment 3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10 is already destroyed.',
  DEPLOYMENT_NOT_READY: 'Deployment 3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10 is not ready (status provisioning).',
  OPERATION_NOT_CANCELABLE: 'Operation op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d is succeeded and cannot be canceled.',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was already used with a different request.',
  PAYLOAD_TOO_LARGE: 'The request body exceeds 65536 bytes.',
  UNSUPPORTED_MEDIA_TYPE: 'Send the request body as JSON with Content-Type: application/json.',
  RATE_LIMIT_EXCEEDED: 'Rate limit exceeded: the burst limit of 100 requests per minute for this API key. Retry after 60 seconds.',
  INTERNAL_ERROR: 'An internal error occurred. Quote the request id if you contact support.',
};

const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  202: 'Accepted',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

const PARAM_DOCS: Record<string, string> = {
  deployment_id: 'Deployment id (a UUID).',
  operation_id: 'Operation id (`op_<uuid>`).',
  environment_id: 'Environment id, e.g. `env_default`.',
  asset: 'File name of a documentation asset.',
  page: 'Page number, 1-indexed.',
  per_page: `Items per page, at most ${s.PAGE_SIZE_MAX}.`,
  status: 'Only items with this status.',
  type: 'Only operations of this type.',
  resource_id: 'Only operations on this resource (a deployment id; `dep_<uuid>` is read as `<uuid>`).',
};

const TAGS = [
  {
    name: 'Deployments',
    description:
      'Hosted airflow and superset instances. Creating and destroying them is asynchronous: the answer is `202` with an operation to poll.',
  },
  {
    name: 'Operations',
    description:
      'Asynchronous work (create, destroy, DAG sync, user provisioning). Poll `GET /api/v1/operations/{operation_id}` every 2-5 seconds, at most once per second, until `succeeded`, `failed` or `canceled`.',
  },
  { name: 'Organization', description: 'The calling organization and API key.' },
  { name: 'Meta', description: 'This description and its interactive documentation. No key needed.' },
];

function description(): string {
  const l = config().limits;
  return [
    'Programmatic access to deploy, manage and monitor hosted airflow and superset deployments.',
    '',
    '**Authentication.** Send your API key in the `X-API-Key` header (keys look like `svc_sk_live_…` and are created in the dashboard under Organization > API Keys). Each operation states the scope it needs; a key has every scope unless restricted. Bearer tokens are not accepted.',
    '',
    '**Envelope.** Success bodies are `{"data": …}`; errors are `{"error": {"code", "message", "request_id", "details"?, "operation_id"?}}`. Every response carries `X-Request-Id` (send your own, up to 128 characters of `A-Za-z0-9._:-`, to have it echoed).',
    '',
    `**Limits.** ${l.perHour} requests per key per clock hour, ${l.perMinute} per key per clock minute, ${l.createsPerHour} deployment creations per organization per hour. Responses to an accepted key carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (the hourly window; Unix seconds). Over a limit: \`429 RATE_LIMIT_EXCEEDED\` with \`Retry-After\` seconds.`,
    '',
    '**Asynchronous work.** `202` answers carry the operation id, `Location: /api/v1/operations/<id>` and `Retry-After: 2`. Poll the operation every 2-5 seconds (at most once per second) until it is `succeeded`, `failed` or `canceled`; back off exponentially after errors; give up after a client timeout (30 minutes is suggested).',
    '',
    '**Idempotency.** POST endpoints accept an `Idempotency-Key` header (1-255 characters): repeating it within 24 hours replays the first response with `Idempotent-Replayed: true`.',
    '',
    '**The guide.** Everything above and every rule behind it (statuses and their transitions, phases, lists and filters, cancel, every error code) is explained in prose in `docs/api.md`, in the repository that serves this document.',
  ].join('\n');
}

// ---- examples ------------------------------------------------------------------

const AT = '2026-11-22T06:40:00.000Z';
const DEP_ID = '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10';
const OP_ID = 'op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const REQUEST_ID = 'req_5d0f1c2b3a4e4f6a8b9c0d1e2f3a4b5c';

const EXAMPLES = new Map<z.ZodType, unknown>([
  [
    s.Deployment,
    {
      id: DEP_ID,
      name: 'airflow-3fa9c2',
      app_type: 'airflow',
      status: 'ready',
      url: `https://airflow.${DEP_ID}.apps.example.com`,
      environment_id: s.DEFAULT_ENVIRONMENT_ID,
      created_at: AT,
      links: { self: `${API_PREFIX}/deployments/${DEP_ID}`, operation: `${API_PREFIX}/operations/${OP_ID}` },
    } satisfies s.Deployment,
  ],
  [
    s.Operation,
    {
      id: OP_ID,
      type: 'deployment.create',
      status: 'running',
      progress: { phase: 'provisioning_db', message: 'Provisioning the database.' },
      resource: { type: 'deployment', id: DEP_ID },
      requested_at: AT,
      started_at: '2026-11-22T06:40:01.000Z',
      links: { self: `${API_PREFIX}/operations/${OP_ID}`, resource: `${API_PREFIX}/deployments/${DEP_ID}` },
    } satisfies s.Operation,
  ],
  [
    s.Environment,
    {
      id: s.DEFAULT_ENVIRONMENT_ID,
      name: 'Default',
      is_default: true,
      created_at: AT,
      links: { self: `${API_PREFIX}/environments/${s.DEFAULT_ENVIRONMENT_ID}` },
    } satisfies s.Environment,
  ],
  [
    s.ApiKeyInfo,
    {
      id: 'key_1a2b3c4d5e6f7a8b9c0d',
      name: 'ci',
      org_id: 'org-1234',
      scopes: [...s.SCOPES],
      expires_at: null,
      created_at: AT,
      hint: 'svc_sk_live_…abcd',
    } satisfies s.ApiKeyInfo,
  ],
  [
    s.Accepted,
    {
      deployment_id: DEP_ID,
      operation_id: OP_ID,
      links: { deployment: `${API_PREFIX}/deployments/${DEP_ID}`, operation: `${API_PREFIX}/operations/${OP_ID}` },
    } satisfies s.Accepted,
  ],
  [s.CreateDeploymentBody, { app_type: 'airflow', name: 'analytics' } satisfies s.CreateDeploymentBody],
  [s.CreateAppUserBody, { username: 'ada', email: 'ada@example.com', role: 'editor' } satisfies s.CreateAppUserBody],
  [s.EmptyBody, {}],
]);

/** The example of a data schema: a registered one, or a one-item list page of one. */
function exampleOf(schema: z.ZodType | undefined, path: string): unknown {
  if (!schema) return undefined;
  if (EXAMPLES.has(schema)) return EXAMPLES.get(schema);
  if (schema instanceof z.ZodObject && schema.shape.items instanceof z.ZodArray && 'pagination' in schema.shape) {
    const item = exampleOf(schema.shape.items.element as z.ZodType, path);
    if (item === undefined) return undefined;
    const at = (page: number) => `${API_PREFIX}${path}?page=${page}&per_page=${s.PAGE_SIZE_DEFAULT}`;
    return {
      items: [item],
      pagination: { page: 1, per_page: s.PAGE_SIZE_DEFAULT, total: 1, pages: 1 },
      links: { self: at(1), first: at(1), last: at(1), next: null, prev: null },
    };
  }
  return undefined;
}

// ---- headers -------------------------------------------------------------------

const ref = (kind: 'headers' | 'parameters' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const HEADERS = {
  XRequestId: {
    name: 'X-Request-Id',
    required: true,
    schema: { type: 'string' },
    description: "The id of this request: the caller's X-Request-Id when it is a safe token, else a fresh one.",
  },
  XRateLimitLimit: {
    name: 'X-RateLimit-Limit',
    required: true,
    schema: { type: 'integer' },
    description: 'Requests allowed per key in the hourly window.',
  },
  XRateLimitRemaining: {
    name: 'X-RateLimit-Remaining',
    required: true,
    schema: { type: 'integer' },
    description: 'Requests left in the current hourly window (0 on a 429).',
  },
  XRateLimitReset: {
    name: 'X-RateLimit-Reset',
    required: true,
    schema: { type: 'integer' },
    description: 'Unix time (seconds) when the hourly window resets.',
  },
  RateLimitPolicy: {
    name: 'RateLimit-Policy',
    required: false,
    schema: { type: 'string' },
    description: 'The limits in IETF draft form (hourly, burst, creations).',
  },
  RateLimit: {
    name: 'RateLimit',
    required: false,
    schema: { type: 'string' },
    description: 'Remaining quota and seconds to reset per limit, in IETF draft form.',
  },
  RetryAfter: {
    name: 'Retry-After',
    required: true,
    schema: { type: 'integer' },
    description: 'Seconds to wait before the next request (on 202: before polling the operation).',
  },
  Location: {
    name: 'Location',
    required: true,
    schema: { type: 'string' },
    description: 'Path of the operation to poll: /api/v1/operations/<operation_id>.',
  },
  IdempotentReplayed: {
    name: 'Idempotent-Replayed',
    required: false,
    schema: { type: 'string', enum: ['true'] },
    description: 'Present when this is a replay of the first response to the same Idempotency-Key.',
  },
  Allow: { name: 'Allow', required: true, schema: { type: 'string' }, description: 'The methods this path takes.' },
  CacheControl: { name: 'Cache-Control', required: true, schema: { type: 'string' }, description: 'How long the response may be cached.' },
} as const;
type HeaderName = keyof typeof HEADERS;

function headers(names: readonly HeaderName[]) {
  return Object.fromEntries(names.map((n) => [HEADERS[n].name, ref('headers', n)]));
}

const RATE_LIMIT_HEADERS: HeaderName[] = ['XRateLimitLimit', 'XRateLimitRemaining', 'XRateLimitReset', 'RateLimitPolicy', 'RateLimit'];

// ---- the document --------------------------------------------------------------

const COMPONENT_SCHEMAS: Record<string, z.ZodType> = {
  Deployment: s.Deployment,
  Operation: s.Operation,
  Environment: s.Environment,
  ApiKeyInfo: s.ApiKeyInfo,
  Accepted: s.Accepted,
  Pagination: s.Pagination,
  ListLinks: s.ListLinks,
  Error: s.ErrorBody,
  CreateDeploymentBody: s.CreateDeploymentBody,
  CreateAppUserBody: s.CreateAppUserBody,
};

function registerComponentSchemas(): void {
  for (const [name, schema] of Object.entries(COMPONENT_SCHEMAS)) {
    // Names the existing schema instances, so every place they are used becomes a $ref.
    // (`registry.register` would name a copy, and `extendZodWithOpenApi` cannot reach
    // instances created before it ran.)
    if (!zodToOpenAPIRegistry.has(schema)) zodToOpenAPIRegistry.add(schema, { _internal: { refId: name } });
  }
}

function securityOf(access: Access): Record<string, string[]>[] {
  if (access === 'public') return [];
  if (access === 'key') return [{ [SECURITY_SCHEME]: [] }];
  return access.map((scope) => ({ [SECURITY_SCHEME]: [scope] }));
}

function accessText(access: Access): string {
  if (access === 'public') return 'No API key needed.';
  if (access === 'key') return 'Needs a valid API key; no scope needed.';
  const [first, ...rest] = access;
  return `Needs an API key with scope \`${first}\`${rest.length ? ` (or ${rest.map((x) => `\`${x}\``).join(', ')})` : ''}.`;
}

function errorResponses(route: Route): RouteConfig['responses'] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  const out: RouteConfig['responses'] = {};
  for (const [status, codes] of byStatus) {
    const limited = route.access !== 'public' && status !== 401 && status !== 500;
    out[status] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\` (${ERROR_MEANING[c]})`).join('; ')}`,
      headers: headers(['XRequestId', ...(limited ? RATE_LIMIT_HEADERS : []), ...(status === 429 ? ['RetryAfter' as const] : [])]),
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('schemas', 'Error'),
              { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string', enum: codes } } } } },
            ],
          },
          examples: Object.fromEntries(
            codes.map((code) => [
              code,
              {
                summary: ERROR_MEANING[code],
                value: {
                  error: {
                    code,
                    message: ERROR_EXAMPLE_MESSAGE[code],
                    request_id: REQUEST_ID,
                    ...(code === 'INVALID_REQUEST' ? { details: [{ field: 'app_type', issue: 'must be one of: airflow, superset' }] } : {}),
                  },
                },
              },
            ]),
          ),
        },
      },
    };
  }
  return out;
}

function successResponse(id: RouteId, route: Route): RouteConfig['responses'] {
  const { status, data, contentType } = route.success;
  const names: HeaderName[] = ['XRequestId'];
  if (route.access !== 'public') names.push(...RATE_LIMIT_HEADERS);
  if (status === 202) names.push('Location', 'RetryAfter');
  if (route.method === 'POST') names.push('IdempotentReplayed');
  if (route.access === 'public') names.push('CacheControl');
  let content: ZodContentObject;
  if (data) {
    const example = exampleOf(data, route.path);
    content = { 'application/json': { schema: z.object({ data }), ...(example !== undefined ? { example: { data: example } } : {}) } };
  } else if (id === 'getOpenApi') {
    content = {
      'application/json': {
        schema: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          description: 'An OpenAPI 3.1 document (not wrapped in the data envelope).',
        },
      },
    };
  } else if (id === 'getDocsAsset') {
    const types = [...new Set(DOCS_ASSET_NAMES.map(docsAssetContentType))];
    content = Object.fromEntries(types.map((t) => [t.split(';')[0]!, { schema: { type: 'string' } }]));
  } else {
    content = { [contentType ?? 'text/html']: { schema: { type: 'string' } } };
  }
  return {
    [status]: {
      description:
        status === 202 ? 'Accepted: poll the operation in `data.operation_id` (also in Location).' : (STATUS_TEXT[status] ?? 'Success'),
      headers: headers(names),
      content,
    },
  };
}

/** Query integers are strings to zod (it parses them); to clients they are integers with bounds and defaults. */
function describeQueryParam(field: z.ZodType): Record<string, unknown> | undefined {
  let found: z.ZodNumber | undefined;
  const visit = (t: z.ZodType): void => {
    if (found) return;
    if (t instanceof z.ZodNumber) found = t;
    else if (t instanceof z.ZodPipe) {
      visit(t.in as z.ZodType);
      visit(t.out as z.ZodType);
    } else if (t instanceof z.ZodOptional || t instanceof z.ZodDefault) visit(t.unwrap() as z.ZodType);
  };
  visit(field);
  if (!found) return undefined;
  const { $schema: _ignored, ...schema } = z.toJSONSchema(found) as Record<string, unknown>;
  const fallback = field.safeParse(undefined);
  return { ...schema, ...(fallback.success && fallback.data !== undefined ? { default: fallback.data } : {}) };
}

interface GeneratedParameter {
  name: string;
  in: string;
  description?: string;
  schema?: Record<string, unknown>;
}

function postProcessParameters(route: Route, params: GeneratedParameter[] | undefined): void {
  const shape = route.query instanceof z.ZodObject ? (route.query.shape as Record<string, z.ZodType>) : {};
  for (const p of params ?? []) {
    if ('$ref' in p) continue;
    p.description ??= PARAM_DOCS[p.name];
    if (p.in === 'path' && p.name === 'asset') p.schema = { type: 'string', enum: [...DOCS_ASSET_NAMES] };
    const field = p.in === 'query' ? shape[p.name] : undefined;
    const numeric = field && describeQueryParam(field);
    if (numeric) p.schema = numeric;
  }
}

function build(): OpenApiDocument {
  registerComponentSchemas();
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'An API key, `svc_sk_live_<token>`, from the dashboard (Organization > API Keys).',
  });
  for (const [name, { name: _n, schema, ...header }] of Object.entries(HEADERS)) {
    registry.registerComponent('headers', name, { ...header, schema: structuredClone(schema) as Record<string, unknown> });
  }
  registry.registerComponent('parameters', 'IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    description:
      'Makes the POST safe to retry: the same key within 24 hours replays the first response (with `Idempotent-Replayed: true`); the same key with a different body is `409 IDEMPOTENCY_KEY_REUSED`.',
  });
  registry.registerComponent('parameters', 'RequestId', {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    schema: { type: 'string', maxLength: 128 },
    description:
      'Your id for this request (up to 128 characters of `A-Za-z0-9._:-`), echoed in the X-Request-Id response header and in error bodies.',
  });

  for (const [id, route] of Object.entries(routes) as [RouteId, Route][]) {
    const scopes = scopesOf(route.access);
    registry.registerPath({
      method: route.method.toLowerCase() as 'get' | 'post' | 'delete',
      path: API_PREFIX + route.path,
      operationId: id,
      summary: route.summary,
      description: accessText(route.access),
      tags: [route.tag],
      security: securityOf(route.access),
      ...(scopes.length ? { 'x-required-scopes': [...scopes] } : {}),
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query instanceof z.ZodObject ? { query: route.query } : {}),
        ...(route.body
          ? {
              body: {
                required: !(route.body instanceof z.ZodObject && Object.keys(route.body.shape).length === 0),
                content: {
                  'application/json': { schema: route.body, ...(EXAMPLES.has(route.body) ? { example: EXAMPLES.get(route.body) } : {}) },
                },
              },
            }
          : {}),
      },
      responses: { ...successResponse(id, route), ...errorResponses(route) },
    });
  }

  // Component schemas are listed too, so the ones only named by hand-written $refs (Error) are emitted.
  const definitions = [...registry.definitions, ...Object.values(COMPONENT_SCHEMAS).map((schema) => ({ type: 'schema' as const, schema }))];
  const doc = new OpenApiGeneratorV31(definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Deployment Management API', version: '1.0.0', description: description() },
    // Paths carry the full /api/v1 prefix, so the host root is the server: "Try it out"
    // on the docs page calls the same host that served it.
    servers: [{ url: '/', description: 'This host' }],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: TAGS,
  });

  for (const [id, route] of Object.entries(routes) as [RouteId, Route][]) {
    const op = doc.paths?.[API_PREFIX + route.path]?.[route.method.toLowerCase() as 'get'] as { parameters?: unknown[] } | undefined;
    if (!op) throw new Error(`OpenAPI generation lost route ${id}`);
    const params = (op.parameters ?? []) as GeneratedParameter[];
    postProcessParameters(route, params);
    params.push(ref('parameters', 'RequestId') as unknown as GeneratedParameter);
    if (route.method === 'POST') params.push(ref('parameters', 'IdempotencyKey') as unknown as GeneratedParameter);
    op.parameters = params;
  }
  for (const [name, schema] of Object.entries(COMPONENT_SCHEMAS)) {
    const example = EXAMPLES.get(schema);
    const target = doc.components?.schemas?.[name] as Record<string, unknown> | undefined;
    if (target && example !== undefined) target.examples = [example];
  }
  delete (doc as { webhooks?: unknown }).webhooks;
  return doc;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

let built: { doc: OpenApiDocument; json: string } | undefined;

/** The document (built on first use, then shared by the whole process). */
export function openApiDocument(): OpenApiDocument {
  built ??= (() => {
    const doc = deepFreeze(build());
    return { doc, json: JSON.stringify(doc) };
  })();
  return built.doc;
}

/** The document serialised, as served at GET /api/v1/openapi.json. */
export function openApiJson(): string {
  openApiDocument();
  return built!.json;
}
