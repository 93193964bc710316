import { findDeployment } from '../app/lookups.js';
import { deploymentView } from '../core/deployments.js';
import { config } from '../lib/config.js';
import { httpRoute } from '../middleware/http-route.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.getDeployment, async ({ caller, params }) => ({
  data: deploymentView(await findDeployment(caller.orgId, params.deployment_id), config().appDomain),
}));
