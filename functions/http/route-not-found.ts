/**
 * The answer for a request no route takes: 404 NOT_FOUND for an unknown path, 405 with
 * `Allow` for a known path with another method (decision 33). On AWS, API Gateway sends
 * such requests here through catch-all methods; locally the server calls it directly.
 */
import { apiError } from '../../contract/errors.js';
import { UNMATCHED_ROUTE_GROUP } from '../../contract/metric-catalogue.js';
import { matchDashboardRoute, matchRoute } from '../../contract/router.js';
import { baseStack, lambdaHandler } from '../middleware/base-stack.js';

export const handler = lambdaHandler(
  baseStack(UNMATCHED_ROUTE_GROUP).handler(async ({ httpMethod: method, path }) => {
    const match = (path.startsWith('/dashboard/') ? matchDashboardRoute : matchRoute)(method, path);
    if (match.kind !== 'method-not-allowed') throw apiError('NOT_FOUND', { method, path });
    const allow = match.allow.join(', ');
    throw apiError('METHOD_NOT_ALLOWED', { method, allow }, { headers: { Allow: allow } });
  }),
);
