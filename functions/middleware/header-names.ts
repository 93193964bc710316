/**
 * Header names in lower case (`event.headers['content-type']` whatever the client sent),
 * each map rebuilt without a prototype, so a header named `constructor` or `__proto__` is
 * a name like any other. What @middy/http-header-normalizer does by default, without its
 * canonical-form tables and options, which every HTTP function bundled (1.4 KB).
 */
import type { ApiMiddleware } from './api-request.js';

function lowerCased<T>(headers: Record<string, T>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  for (const key in headers) out[key.toLowerCase()] = headers[key]!;
  return out;
}

export const headerNames = (): ApiMiddleware => ({
  before({ event }) {
    if (event.headers) event.headers = lowerCased(event.headers);
    if (event.multiValueHeaders) event.multiValueHeaders = lowerCased(event.multiValueHeaders);
  },
});
