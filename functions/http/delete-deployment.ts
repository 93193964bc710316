import { destroyDeployment } from '../core/deployment-commands';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.deleteDeployment, ({ caller, params, now }) =>
  destroyDeployment(caller.orgId, params.deployment_id, now));
