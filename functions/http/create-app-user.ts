import * as routes from '../../contract/routes.js';
import { provisionAppUser } from '../app/deployment-commands.js';
import { httpBodyRoute } from '../middleware/body-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = httpBodyRoute(routes.createAppUser, async ({ caller, params, body, now }) =>
  accepted(await provisionAppUser({ orgId: caller.orgId, deploymentId: params.deployment_id, user: body, now, actor: caller.actor })),
);
