/** The response headers: components of the document, referenced by each response that carries them. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Route } from '../../contract/routes.js';
import { DEPRECATIONS } from '../core/deprecations.js';
import { ref } from './openapi-refs.js';

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
  IdempotencyRetryAfter: {
    name: 'Retry-After',
    required: false,
    schema: { type: 'integer' },
    description: 'With `IDEMPOTENCY_KEY_IN_USE`: seconds to wait before retrying with the same Idempotency-Key.',
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
  ETag: {
    name: 'ETag',
    required: true,
    schema: { type: 'string' },
    description: 'The deployment\'s current revision, quoted (e.g. "3"): send it as If-Match to update only that revision.',
  },
  Deprecation: {
    name: 'Deprecation',
    required: false,
    schema: { type: 'string', pattern: '^@[0-9]+$' },
    description:
      'Present when the request used a deprecated feature (RFC 9745): `@` and the Unix time (seconds) it was deprecated. Every answer to such a request carries it, errors included.',
  },
  Sunset: {
    name: 'Sunset',
    required: false,
    schema: { type: 'string' },
    description: 'With `Deprecation`: the HTTP-date after which the feature may stop working (RFC 8594).',
  },
  DeprecationLink: {
    name: 'Link',
    required: false,
    schema: { type: 'string' },
    description: 'With `Deprecation`: `<url>; rel="deprecation"`, where the deprecation and what to do instead are explained.',
  },
  Allow: { name: 'Allow', required: true, schema: { type: 'string' }, description: 'The methods this path takes.' },
  CacheControl: { name: 'Cache-Control', required: true, schema: { type: 'string' }, description: 'How long the response may be cached.' },
} as const;

export type HeaderName = keyof typeof HEADERS;

/** The headers every response to an accepted key carries. */
export const RATE_LIMIT_HEADERS: readonly HeaderName[] = [
  'XRateLimitLimit',
  'XRateLimitRemaining',
  'XRateLimitReset',
  'RateLimitPolicy',
  'RateLimit',
];

/** Decision 44's headers, on every answer of a route where a deprecated feature can be used. */
export const deprecationHeadersOf = (route: Route): HeaderName[] =>
  DEPRECATIONS.some((d) => d.use.routes.includes(`${route.method} ${route.path}`)) ? ['Deprecation', 'Sunset', 'DeprecationLink'] : [];

/** A response's `headers`: each named header by reference. */
export function headerRefs(names: readonly HeaderName[]) {
  return Object.fromEntries(names.map((n) => [HEADERS[n].name, ref('headers', n)]));
}

export function registerHeaders(registry: OpenAPIRegistry): void {
  for (const [name, { name: _n, schema, ...header }] of Object.entries(HEADERS)) {
    registry.registerComponent('headers', name, { ...header, schema: structuredClone(schema) as Record<string, unknown> });
  }
}
