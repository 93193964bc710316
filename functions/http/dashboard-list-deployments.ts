import * as dashboard from '../../contract/dashboard-routes.js';
import { listDeployments } from '../adapters/dynamo/deployment-reads.js';
import { deploymentView } from '../core/deployments.js';
import { config } from '../lib/config.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listDeployments, async ({ user, query }) => {
  const { items, pagination } = await listDeployments(user.orgId, query);
  return { data: { items: items.map((d) => deploymentView(d, config().appDomain)), pagination } };
});
