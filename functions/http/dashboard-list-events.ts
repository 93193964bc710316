import * as dashboard from '../../contract/dashboard-routes.js';
import { listEvents } from '../adapters/dynamo/event-reads.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listEvents, async ({ user, query }) => {
  const resourceId = query.resource_id?.replace(/^dep_/, '').toLowerCase();
  return { data: await listEvents(user.orgId, { type: query.type, resourceId }, query) };
});
