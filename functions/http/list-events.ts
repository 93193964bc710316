import * as routes from '../../contract/routes.js';
import { listEvents } from '../adapters/dynamo/event-reads.js';
import { listLinks } from '../core/pagination.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listEvents, async ({ caller, query }) => {
  const { items, pagination } = await listEvents(caller.orgId, { type: query.type, resourceId: query.resource_id }, query);
  return {
    data: { items, pagination, links: listLinks(routes.listEvents.path, { type: query.type, resource_id: query.resource_id }, pagination) },
  };
});
