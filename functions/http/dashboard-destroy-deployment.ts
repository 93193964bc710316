import { confirmUserInPool } from '../app/dashboard-users.js';
import { destroyDeployment } from '../app/deployment-commands.js';
import { dashboardRoutes } from '../dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = dashboardRoute(dashboardRoutes.destroyDeployment, async ({ user, params, now }) => {
  await confirmUserInPool(user);
  // actor: user — the change is the signed-in user's (decision 46), once the command takes an actor.
  return accepted(await destroyDeployment(user.orgId, params.deployment_id, now));
});
