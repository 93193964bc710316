import { httpHandler, JSON_CONTENT_TYPE } from '../lib/http.js';
import { openApiJson } from '../lib/openapi.js';
import { routes } from '../routes.js';

/** The OpenAPI document itself (not wrapped in the data envelope), for tools and the docs page. */
export const handler = httpHandler(routes.getOpenApi, async () => ({
  raw: { body: openApiJson(), contentType: JSON_CONTENT_TYPE, headers: { 'Cache-Control': 'public, max-age=300' } },
}));
