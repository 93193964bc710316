/**
 * A request that uses a deprecated feature (core/deprecations.ts) is answered as before,
 * so no client breaks before the sunset, and every answer to it, errors included,
 * carries `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and `Link: <…>; rel="deprecation"`. Whether a request
 * uses one is read from the request itself, before any check: a 401, a 429 or a 400 for
 * another parameter is still an answer to a request that used it. The usage log reads
 * `api.deprecations` to mark the request's entry (decision 44).
 */

import { API_PREFIX } from '../../contract/paths.js';
import { ID_FORMS } from '../../contract/schemas.js';
import { DEPRECATIONS, type Deprecation } from '../core/deprecations.js';
import { type ApiMiddleware, type ApiRequest, wireResponse } from './api-request.js';

const unixSeconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/** The three headers of one deprecated feature. */
export function deprecationHeaders(d: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${unixSeconds(d.since)}`,
    Sunset: new Date(unixSeconds(d.sunset) * 1000).toUTCString(),
    Link: `<${d.link}>; rel="deprecation"`,
  };
}

/** The deprecated features a request uses: its route, and the form of a query parameter's value. */
export function deprecationsUsed(method: string, path: string, query: Record<string, string | undefined>): Deprecation[] {
  return DEPRECATIONS.filter(({ use }) => {
    const value = query[use.query];
    return (
      value !== undefined &&
      use.routes.some((r) => r === `${method} ${path.slice(API_PREFIX.length)}` && path.startsWith(API_PREFIX)) &&
      new RegExp(ID_FORMS[use.form].pattern).test(value)
    );
  });
}

function stamp(request: ApiRequest): void {
  const used = request.context.api?.deprecations ?? [];
  const response = wireResponse(request.response);
  if (!response || used.length === 0) return;
  // One feature today; were two used at once, the earliest sunset is the one to announce.
  const first = [...used].sort((a, b) => a.sunset.localeCompare(b.sunset))[0]!;
  response.headers = { ...response.headers, ...deprecationHeaders(first), Link: used.map((d) => deprecationHeaders(d).Link).join(', ') };
}

export const deprecationNotice = (): ApiMiddleware => ({
  before(request) {
    const { api } = request.context;
    api.deprecations = deprecationsUsed(api.route.method, api.route.path, request.event.queryStringParameters ?? {});
  },
  after: stamp,
  onError: stamp,
});
