import * as routes from '../../contract/routes.js';
import { findDeployment } from '../app/lookups.js';
import { deploymentView } from '../core/deployments.js';
import { etagOf } from '../core/revisions.js';
import { config } from '../lib/config.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.getDeployment, async ({ caller, params }) => {
  const deployment = await findDeployment(caller.orgId, params.deployment_id);
  return { data: deploymentView(deployment, config().appDomain), headers: { ETag: etagOf(deployment.revision) } };
});
