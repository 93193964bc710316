import { confirmUserInPool } from '../app/dashboard-users.js';
import { createDeployment } from '../app/deployment-commands.js';
import { dashboardRoutes } from '../dashboard-routes.js';
import { config } from '../lib/config.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = dashboardRoute(dashboardRoutes.createDeployment, async ({ user, body, now }) => {
  await confirmUserInPool(user);
  // actor: user — the change is the signed-in user's (decision 46), once the command takes an actor.
  return accepted(await createDeployment({ orgId: user.orgId, body, limits: config().limits, now }));
});
