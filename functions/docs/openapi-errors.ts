/**
 * The error responses of each operation, grouped by status. Every code's status, meaning
 * and example message come from the error catalogue (`core/errors.ts`); a route's list is
 * typed with the catalogue's codes.
 */
import { STATUS_CODES } from 'node:http';
import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { type ErrorCode, errorMeaning, errorStatus, exampleMessage } from '../core/errors.js';
import type { Route } from '../routes.js';
import { EXAMPLE_REQUEST_ID } from './openapi-examples.js';
import { deprecationHeadersOf, type HeaderName, headerRefs, RATE_LIMIT_HEADERS } from './openapi-headers.js';
import { ref } from './openapi-refs.js';

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
  const common: readonly ErrorCode[] =
    route.access === 'public' ? ['INTERNAL_ERROR'] : [...KEYED_ERRORS, ...(route.access === 'key' ? [] : SCOPED_ERRORS)];
  return [...new Set([...own, ...common])].sort((a, b) => errorStatus(a) - errorStatus(b));
}

/** The example body of a code: the message the service sends, from the catalogue. */
function errorExample(code: ErrorCode) {
  return {
    summary: errorMeaning(code),
    value: {
      error: {
        code,
        message: exampleMessage(code),
        request_id: EXAMPLE_REQUEST_ID,
        ...(code === 'INVALID_REQUEST' ? { details: [{ field: 'app_type', issue: 'must be one of: airflow, superset' }] } : {}),
      },
    },
  };
}

/** The headers of an error response: rate-limit headers once a key is accepted, Retry-After where the codes send it. */
function errorHeaders(route: Route, status: number, codes: readonly ErrorCode[]): HeaderName[] {
  const limited = route.access !== 'public' && status !== 401 && status !== 500;
  return [
    'XRequestId',
    ...(limited ? RATE_LIMIT_HEADERS : []),
    ...(status === 429 ? ['RetryAfter' as const] : []),
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
          schema: {
            allOf: [
              ref('schemas', 'Error'),
              { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'string', enum: codes } } } } },
            ],
          },
          examples: Object.fromEntries(codes.map((code) => [code, errorExample(code)])),
        },
      },
    };
  }
  return out;
}
