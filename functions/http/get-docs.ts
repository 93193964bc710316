import { ApiError } from '../core/errors.js';
import { docsAsset, docsPage } from '../lib/docs-assets.js';
import { httpHandler, type LambdaHandler } from '../lib/http.js';
import { routes } from '../routes.js';

const page = httpHandler(routes.getDocs, async ({ event }) => ({ raw: docsPage(event.path) }));

const asset = httpHandler(routes.getDocsAsset, async ({ params, event }) => {
  const found = docsAsset(params.asset, event.queryStringParameters?.v);
  if (!found) throw new ApiError(404, 'NOT_FOUND', `No documentation asset named ${params.asset}.`);
  return { raw: found };
});

/** One function serves the docs page and its assets (both routes name this handler). */
export const handler: LambdaHandler = (event) => (event.pathParameters?.asset !== undefined ? asset(event) : page(event));
