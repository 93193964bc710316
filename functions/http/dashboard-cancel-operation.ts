import * as dashboard from '../../contract/dashboard-routes.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { cancelOperation } from '../app/deployment-commands.js';
import { userActor } from '../core/events.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.cancelOperation, async ({ user, params, now }) => {
  await confirmUserInPool(user);
  // The change is the signed-in user's (decision 46).
  return { data: await cancelOperation(user.orgId, params.operation_id, now, userActor(user.sub)) };
});
