/**
 * The error responses of each operation, grouped by status. Every code's status, meaning
 * and example message come from the error catalogue (`contract/errors.ts`); a route's list is
 * typed with the catalogue's codes. Each code has its own named schema (the error envelope
 * with `code` fixed to it), and a status that several codes share is the `anyOf` of theirs:
 * a form linters and client generators read as it is meant, unlike an `allOf` that narrows
 * the envelope afterwards (decision 161).
 */
import { STATUS_CODES } from 'node:http';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { apiError, type ErrorCode, errorStatus } from '../../contract/errors.js';
import type { Route } from '../../contract/routes.js';
import { errorMeaning, exampleMessage } from './error-meanings.js';
import { EXAMPLE_REQUEST_ID } from './openapi-examples.js';
import { deprecationHeadersOf, type HeaderName, headerRefs, RATE_LIMIT_HEADERS } from './openapi-headers.js';
import { ref } from './openapi-refs.js';

/** The name of a code's schema: `DEPLOYMENT_NOT_FOUND` -> `DeploymentNotFoundError`. */
export function errorSchemaName(code: ErrorCode): string {
  const pascal = code
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return pascal.endsWith('Error') ? pascal : `${pascal}Error`;
}

/** The error codes a path answers for a method it does not take (decision 33), besides those of its routes. */
const PATH_ERRORS: readonly ErrorCode[] = ['METHOD_NOT_ALLOWED'];

/** Error codes every route that needs a key can answer with, besides its own. */
const KEYED_ERRORS: readonly ErrorCode[] = [
  'MISSING_API_KEY',
  'INVALID_API_KEY',
  'API_KEY_REVOKED',
  'API_KEY_EXPIRED',
  'RATE_LIMIT_EXCEEDED',
  'INTERNAL_ERROR',
];
/** ...and every route that needs a scope. */
const SCOPED_ERRORS: readonly ErrorCode[] = ['INSUFFICIENT_SCOPE'];

/** The error codes a route can answer with, in status order. */
export function errorCodesOf(route: Route): ErrorCode[] {
  const own = route.errors ?? [];
  const common: readonly ErrorCode[] = [
    ...PATH_ERRORS,
    ...(route.access === 'public' ? ['INTERNAL_ERROR' as const] : [...KEYED_ERRORS, ...(route.access === 'key' ? [] : SCOPED_ERRORS)]),
  ];
  return [...new Set([...own, ...common])].sort((a, b) => errorStatus(a) - errorStatus(b));
}

/** The query parameters a route's schema declares (a zod object's shape), in order. */
const queryFields = (route: Route | undefined): string[] =>
  Object.keys((route?.query as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape ?? {});

/**
 * The `details` an INVALID_REQUEST example shows: for a route read with GET, one of its
 * own query parameters (a list's `per_page` given as `ten`); otherwise a body field.
 */
function invalidDetail(route: Route | undefined): { field: string; issue: string } {
  if (route?.method !== 'GET') return { field: 'app_type', issue: 'must be one of: airflow, superset' };
  const fields = queryFields(route);
  if (fields.includes('per_page')) return { field: 'per_page', issue: 'must be an integer' };
  return { field: fields[0] ?? 'query', issue: 'is not valid' };
}

/** The example body of a code: the message the service sends, from the catalogue. */
function errorExample(code: ErrorCode, route?: Route) {
  return {
    summary: errorMeaning(code),
    value: {
      error: {
        code,
        message:
          code === 'UNSUPPORTED_MEDIA_TYPE' && route?.bodyMediaTypes
            ? apiError(code, { types: route.bodyMediaTypes }).message
            : exampleMessage(code),
        request_id: EXAMPLE_REQUEST_ID,
        ...(code === 'INVALID_REQUEST' ? { details: [invalidDetail(route)] } : {}),
      },
    },
  };
}

/**
 * The headers of an error response: rate-limit headers once a key is accepted (not on a
 * 405, which the catch-all answers before any key is read), Retry-After where the codes send it.
 */
function errorHeaders(route: Route, status: number, codes: readonly ErrorCode[]): HeaderName[] {
  const limited = route.access !== 'public' && status !== 401 && status !== 405 && status !== 500;
  return [
    'XRequestId',
    ...(limited ? RATE_LIMIT_HEADERS : []),
    ...(status === 429 ? ['RetryAfter' as const] : []),
    ...(codes.includes('METHOD_NOT_ALLOWED') ? ['Allow' as const] : []),
    ...(codes.includes('IDEMPOTENCY_KEY_IN_USE') ? ['IdempotencyRetryAfter' as const] : []),
    ...deprecationHeadersOf(route),
  ];
}

export function errorResponses(route: Route): RouteConfig['responses'] {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(route)) byStatus.set(errorStatus(code), [...(byStatus.get(errorStatus(code)) ?? []), code]);
  const out: RouteConfig['responses'] = {};
  for (const [status, codes] of byStatus) {
    out[status] = {
      description: `${STATUS_CODES[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\` (${errorMeaning(c)})`).join('; ')}`,
      headers: headerRefs(errorHeaders(route, status, codes)),
      content: {
        'application/json': {
          schema:
            codes.length === 1
              ? ref('schemas', errorSchemaName(codes[0]!))
              : { anyOf: codes.map((c) => ref('schemas', errorSchemaName(c))) },
          examples: Object.fromEntries(codes.map((code) => [code, errorExample(code, route)])),
        },
      },
    };
  }
  return out;
}

/**
 * Replaces the generated `Error` envelope with one schema per code: the envelope with
 * `code` fixed to the code, described by the catalogue's meaning. Only the codes some
 * operation answers with are added (an unused component would be dead text).
 */
export function addErrorCodeSchemas(schemas: Record<string, unknown> | undefined, routeList: readonly Route[]): void {
  const envelope = schemas?.Error as { properties: { error: { properties: Record<string, unknown> } } } | undefined;
  if (!schemas || !envelope) throw new Error('OpenAPI generation lost the Error schema');
  const used = new Set(routeList.flatMap(errorCodesOf));
  for (const code of [...used].sort()) {
    const schema = structuredClone(envelope) as typeof envelope & Record<string, unknown>;
    schema.properties.error.properties.code = { type: 'string', const: code };
    schemas[errorSchemaName(code)] = { ...schema, description: errorMeaning(code), examples: [errorExample(code).value] };
  }
  // The open envelope served only as the template: every answer names its code's schema.
  delete schemas.Error;
}
