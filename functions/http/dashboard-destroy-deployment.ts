import * as dashboard from '../../contract/dashboard-routes.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { destroyDeployment } from '../app/deployment-commands.js';
import { userActor } from '../core/events.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = dashboardRoute(dashboard.destroyDeployment, async ({ user, params, now }) => {
  await confirmUserInPool(user);
  // The change is the signed-in user's (decision 46).
  return accepted(await destroyDeployment(user.orgId, params.deployment_id, now, userActor(user.sub)));
});
