import { findOperation } from '../app/lookups.js';
import { operationView } from '../core/operations.js';
import { dashboardRoutes } from '../dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboardRoutes.getOperation, async ({ user, params }) => ({
  data: operationView(await findOperation(user.orgId, params.operation_id)),
}));
