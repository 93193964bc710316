import { confirmUserInPool } from '../app/dashboard-users.js';
import { cancelOperation } from '../app/deployment-commands.js';
import { dashboardRoutes } from '../dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboardRoutes.cancelOperation, async ({ user, params, now }) => {
  await confirmUserInPool(user);
  // actor: user — the change is the signed-in user's (decision 46), once the command takes an actor.
  return { data: await cancelOperation(user.orgId, params.operation_id, now) };
});
