import { deploymentView } from '../core/deployments';
import { findDeployment } from '../core/lookups';
import { config } from '../lib/config';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.getDeployment, async ({ caller, params }) => ({
  data: deploymentView(await findDeployment(caller.orgId, params.deployment_id), config().appDomain),
}));
