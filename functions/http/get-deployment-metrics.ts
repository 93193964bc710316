import { deploymentMetrics } from '../app/deployment-metrics.js';
import { httpRoute } from '../middleware/http-route.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.getDeploymentMetrics, async ({ caller, params, query, now }) => ({
  data: await deploymentMetrics(caller.orgId, params.deployment_id, query, now),
}));
