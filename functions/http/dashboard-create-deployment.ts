import * as dashboard from '../../contract/dashboard-routes.js';
import { createDeployment } from '../app/create-deployment.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { userActor } from '../core/events.js';
import { config } from '../lib/config.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = dashboardRoute(dashboard.createDeployment, async ({ user, body, now }) => {
  await confirmUserInPool(user);
  // The change is the signed-in user's (decision 46).
  return accepted(await createDeployment({ orgId: user.orgId, body, limits: config().limits, now, actor: userActor(user.sub) }));
});
