import * as routes from '../../contract/routes.js';
import { startDagSync } from '../app/deployment-commands.js';
import { httpBodyRoute } from '../middleware/body-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = httpBodyRoute(routes.createDagSync, async ({ caller, params, now }) =>
  accepted(await startDagSync({ orgId: caller.orgId, deploymentId: params.deployment_id, now, actor: caller.actor })),
);
