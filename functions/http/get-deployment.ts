import { getDeployment } from '../adapters/dynamo/deployments-repo';
import { deploymentView, UUID } from '../core/deployments';
import { deploymentNotFound } from '../core/errors';
import { config } from '../lib/config';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.getDeployment, async ({ caller, params }) => {
  const id = params.deployment_id.toLowerCase();
  const found = UUID.test(id) ? await getDeployment(caller.orgId, id) : undefined;
  if (!found) throw deploymentNotFound(params.deployment_id);
  return { data: deploymentView(found, config().appDomain) };
});
