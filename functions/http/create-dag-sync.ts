import { startDagSync } from '../app/deployment-commands.js';
import { httpRoute } from '../middleware/http-route.js';
import { accepted } from '../middleware/responses.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.createDagSync, async ({ caller, params, now }) =>
  accepted(await startDagSync({ orgId: caller.orgId, deploymentId: params.deployment_id, now, actor: caller.actor })),
);
