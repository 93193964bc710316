import { apiError } from '../../contract/errors.js';
import * as routes from '../../contract/routes.js';
import { docsAsset, docsPage } from '../docs/docs-assets.js';
import { httpRoute, type LambdaHandler } from '../middleware/http-route.js';

const page = httpRoute(routes.getDocs, async ({ event }) => ({ raw: docsPage(event.path) }));

const asset = httpRoute(routes.getDocsAsset, async ({ params, event }) => {
  const found = docsAsset(params.asset, event.queryStringParameters?.v);
  if (!found) throw apiError('NOT_FOUND', { method: event.httpMethod, path: event.path });
  return { raw: found };
});

/** One function serves the docs page and its assets (both routes name this handler). */
export const handler: LambdaHandler = (event, context) =>
  event.pathParameters?.asset !== undefined ? asset(event, context) : page(event, context);
