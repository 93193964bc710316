import { destroyDeployment } from '../core/deployment-commands.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.deleteDeployment, ({ caller, params, now }) =>
  destroyDeployment(caller.orgId, params.deployment_id, now),
);
