import { deploymentView } from '../core/deployments.js';
import { findDeployment } from '../core/lookups.js';
import { config } from '../lib/config.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.getDeployment, async ({ caller, params }) => ({
  data: deploymentView(await findDeployment(caller.orgId, params.deployment_id), config().appDomain),
}));
