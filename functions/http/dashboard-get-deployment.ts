import * as dashboard from '../../contract/dashboard-routes.js';
import { findDeployment } from '../app/lookups.js';
import { deploymentView } from '../core/deployments.js';
import { config } from '../lib/config.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.getDeployment, async ({ user, params }) => ({
  data: deploymentView(await findDeployment(user.orgId, params.deployment_id), config().appDomain),
}));
