/** One operation of the document per route of the route table: its request, its success response and its error responses. */
import { STATUS_CODES } from 'node:http';
import type { RouteConfig, ZodContentObject } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { ZodMiniObject } from 'zod/mini';
import type * as core from 'zod/v4/core';
import { responseOf } from '../../contract/responses.js';
import { API_PREFIX, type Route, type RouteId } from '../../contract/routes.js';
import { DOCS_ASSET_NAMES, docsAssetContentType } from './docs-assets.js';
import { errorResponses } from './openapi-errors.js';
import { dataExampleOf, exampleOf } from './openapi-examples.js';
import { deprecationHeadersOf, type HeaderName, headerRefs, RATE_LIMIT_HEADERS } from './openapi-headers.js';
import { accessText, scopesOf, securityOf } from './openapi-security.js';
import { classic } from './openapi-zod.js';

function successContent(id: RouteId, route: Route): ZodContentObject {
  const data = responseOf(id)?.data;
  const { contentType } = route.success;
  if (data) {
    const example = dataExampleOf(data, route.path);
    return {
      'application/json': { schema: z.object({ data: classic(data) }), ...(example !== undefined ? { example: { data: example } } : {}) },
    };
  }
  if (id === 'getOpenApi') {
    return {
      'application/json': {
        schema: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
          description: 'An OpenAPI 3.1 document (not wrapped in the data envelope).',
        },
      },
    };
  }
  if (id === 'getDocsAsset') {
    const types = [...new Set(DOCS_ASSET_NAMES.map(docsAssetContentType))];
    return Object.fromEntries(types.map((t) => [t.split(';')[0]!, { schema: { type: 'string' } }]));
  }
  return { [contentType ?? 'text/html']: { schema: { type: 'string' } } };
}

const SUCCESS_DESCRIPTIONS: Record<number, string> = {
  201: 'Created: the new record, in `data`.',
  202: 'Accepted: poll the operation in `data.operation_id` (also in Location).',
};

function successResponse(id: RouteId, route: Route): RouteConfig['responses'] {
  const { status, or } = route.success;
  const orSchemas = responseOf(id)?.or;
  const names: HeaderName[] = ['XRequestId'];
  if (route.access !== 'public') names.push(...RATE_LIMIT_HEADERS);
  if (route.success.etag) names.push('ETag');
  if (route.method === 'POST' || route.method === 'PATCH') names.push('IdempotentReplayed');
  if (route.access === 'public') names.push('CacheControl');
  names.push(...deprecationHeadersOf(route));
  const also = or &&
    orSchemas && {
      [or.status]: {
        description: orSchemas.description,
        headers: headerRefs(names),
        content: { 'application/json': { schema: z.object({ data: classic(orSchemas.data) }) } },
      },
    };
  if (status === 202) names.push('Location', 'RetryAfter');
  return {
    ...also,
    [status]: {
      description: SUCCESS_DESCRIPTIONS[status] ?? STATUS_CODES[status] ?? 'Success',
      headers: headerRefs(names),
      content: successContent(id, route),
    },
  };
}

function requestBody(body: core.$ZodType, mediaTypes: readonly string[], optional = false): NonNullable<RouteConfig['request']>['body'] {
  const example = exampleOf(body);
  return {
    required: !optional && !(body instanceof ZodMiniObject && Object.keys(body.shape).length === 0),
    content: Object.fromEntries(mediaTypes.map((type) => [type, { schema: classic(body), ...(example !== undefined ? { example } : {}) }])),
  };
}

/** The revision an update applies to (decision 42). */
const IF_MATCH = z.object({
  'If-Match': z.optional(z.string().max(24)).describe('`"<revision>"` (the ETag of GET /deployments/{id}) or `*`; otherwise 412.'),
});

/** The operation of a route, for `OpenAPIRegistry.registerPath`. */
export function operationOf(id: RouteId, route: Route): RouteConfig {
  const scopes = scopesOf(route.access);
  return {
    method: route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete',
    path: API_PREFIX + route.path,
    operationId: id,
    summary: route.summary,
    description: accessText(route.access),
    tags: [route.tag],
    security: securityOf(route.access),
    ...(scopes.length ? { 'x-required-scopes': [...scopes] } : {}),
    request: {
      ...(route.params ? { params: classic(route.params) as z.ZodObject } : {}),
      ...(route.query instanceof ZodMiniObject ? { query: classic(route.query) as z.ZodObject } : {}),
      ...(route.body ? { body: requestBody(route.body, route.bodyMediaTypes ?? ['application/json'], route.bodyOptional) } : {}),
      ...(route.success.etag && route.method !== 'GET' ? { headers: IF_MATCH } : {}),
    },
    responses: { ...successResponse(id, route), ...errorResponses(route) },
  };
}
