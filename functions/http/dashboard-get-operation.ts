import * as dashboard from '../../contract/dashboard-routes.js';
import { findOperation } from '../app/lookups.js';
import { operationView } from '../core/operations.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.getOperation, async ({ user, params }) => ({
  data: operationView(await findOperation(user.orgId, params.operation_id)),
}));
