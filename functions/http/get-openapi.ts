import * as routes from '../../contract/routes.js';
import { openApiJson } from '../docs/openapi-document.js';
import { httpRoute } from '../middleware/http-route.js';
import { JSON_CONTENT_TYPE } from '../middleware/responses.js';

/** The OpenAPI document itself (not wrapped in the data envelope), for tools and the docs page. */
export const handler = httpRoute(routes.getOpenApi, async () => ({
  raw: { body: openApiJson(), contentType: JSON_CONTENT_TYPE },
}));
