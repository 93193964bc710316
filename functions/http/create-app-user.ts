import { provisionAppUser } from '../app/deployment-commands.js';
import { httpRoute } from '../middleware/http-route.js';
import { accepted } from '../middleware/responses.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.createAppUser, async ({ caller, params, body, now }) =>
  accepted(await provisionAppUser({ orgId: caller.orgId, deploymentId: params.deployment_id, user: body, now, actor: caller.actor })),
);
