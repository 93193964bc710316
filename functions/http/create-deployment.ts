import * as routes from '../../contract/routes.js';
import { createDeployment } from '../app/create-deployment.js';
import { config } from '../lib/config.js';
import { httpBodyRoute } from '../middleware/body-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = httpBodyRoute(routes.createDeployment, async ({ caller, body, now }) =>
  accepted(await createDeployment({ orgId: caller.orgId, body, limits: config().limits, now, actor: caller.actor })),
);
