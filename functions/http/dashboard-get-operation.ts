import * as dashboard from '../../contract/dashboard-routes.js';
import { findOperation } from '../app/lookups.js';
import { operationLog } from '../app/operation-logs.js';
import { operationView } from '../core/operations.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import type { LambdaHandler } from '../middleware/http-route.js';

const operation = dashboardRoute(dashboard.getOperation, async ({ user, params }) => ({
  data: operationView(await findOperation(user.orgId, params.operation_id)),
}));

const logs = dashboardRoute(dashboard.listOperationLogs, async ({ user, params, query }) => ({
  data: await operationLog(user.orgId, params.operation_id, query),
}));

/**
 * One function serves an operation's reads (the record and its log lines; both routes name
 * this handler), which keeps the prod stack inside its resource headroom (decision 290).
 */
export const handler: LambdaHandler = (event, context) =>
  event.resource?.endsWith('/logs') || event.path?.endsWith('/logs') ? logs(event, context) : operation(event, context);
