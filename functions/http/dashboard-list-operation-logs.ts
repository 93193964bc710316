import { operationLog } from '../app/operation-logs.js';
import * as dashboard from '../dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listOperationLogs, async ({ user, params, query }) => ({
  data: await operationLog(user.orgId, params.operation_id, query),
}));
