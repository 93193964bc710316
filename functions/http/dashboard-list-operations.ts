import * as dashboard from '../../contract/dashboard-routes.js';
import { listOperations } from '../adapters/dynamo/operation-reads.js';
import { operationView } from '../core/operations.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listOperations, async ({ user, query }) => {
  const resourceId = query.resource_id?.replace(/^dep_/, '').toLowerCase();
  const { items, pagination } = await listOperations(user.orgId, { status: query.status, type: query.type, resourceId }, query);
  return { data: { items: items.map(operationView), pagination } };
});
