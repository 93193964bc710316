import * as routes from '../../contract/routes.js';
import { destroyDeployment } from '../app/deployment-commands.js';
import { httpRoute } from '../middleware/http-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = httpRoute(routes.deleteDeployment, async ({ caller, params, now }) =>
  accepted(await destroyDeployment(caller.orgId, params.deployment_id, now, caller.actor)),
);
