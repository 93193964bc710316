/**
 * First of the request's own middlewares, last of them out (after the invocation's frame,
 * invocation.ts, and the request metrics): gives the request its id (decision 2), its
 * instant and its route, puts them on every log line, and on the way out stamps the headers every answer
 * carries (X-Request-Id; the key's rate-limit headers, decision 3; the
 * protective headers, decision 39) and logs one access line.
 */
import { logger } from '../lib/logger.js';
import { type ApiMiddleware, type ApiRequest, wireResponse } from './api-request.js';
import { protectiveHeaders, requestIdFrom } from './responses.js';

function finish(request: ApiRequest): void {
  const { api } = request.context;
  const response = wireResponse(request.response);
  if (!api || !response) return;
  // A limit's own headers (a 429's X-RateLimit-Remaining: 0) win over the key's current ones.
  const headers = { ...api.limitHeaders, ...response.headers };
  response.headers = { ...headers, ...protectiveHeaders(String(headers['Content-Type'])), 'X-Request-Id': api.requestId };
  logger.info('request', { status: response.statusCode, duration_ms: Date.now() - api.now.getTime() });
}

/** `pathTemplate` is the route's path below the host, or undefined for the fallback that answers unknown paths. */
export const requestContext = (pathTemplate?: string): ApiMiddleware => ({
  before(request) {
    const { headers, httpMethod, path } = request.event;
    const requestId = requestIdFrom(headers?.['x-request-id']);
    const route = { method: httpMethod, path: pathTemplate ?? path };
    request.context.api = { requestId, now: new Date(), route, limitHeaders: {}, input: {} };
    logger.appendKeys({ request_id: requestId, route: `${route.method} ${route.path}` });
  },
  after: finish,
  onError: finish,
});
