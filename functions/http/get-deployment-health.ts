import { deploymentHealth } from '../app/deployment-health.js';
import { httpRoute } from '../middleware/http-route.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.getDeploymentHealth, async ({ caller, params }) => ({
  data: await deploymentHealth(caller.orgId, params.deployment_id),
}));
