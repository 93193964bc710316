import { destroyDeployment } from '../app/deployment-commands.js';
import { httpRoute } from '../middleware/http-route.js';
import { accepted } from '../middleware/responses.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.deleteDeployment, async ({ caller, params, now }) =>
  accepted(await destroyDeployment(caller.orgId, params.deployment_id, now, caller.actor)),
);
