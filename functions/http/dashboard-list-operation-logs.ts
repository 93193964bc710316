import * as dashboard from '../../contract/dashboard-routes.js';
import { operationLog } from '../app/operation-logs.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listOperationLogs, async ({ user, params, query }) => ({
  data: await operationLog(user.orgId, params.operation_id, query),
}));
