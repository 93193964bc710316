import * as dashboard from '../../contract/dashboard-routes.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { updateDeployment } from '../app/update-config.js';
import { userActor } from '../core/events.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import { updateAnswer } from '../middleware/responses.js';

export const handler = dashboardRoute(dashboard.updateDeployment, async ({ user, params, query, body, event, now }) => {
  await confirmUserInPool(user);
  // The change is the signed-in user's (decision 46).
  const answer = await updateDeployment({
    orgId: user.orgId,
    deploymentId: params.deployment_id,
    ifMatch: event.headers['if-match'],
    dryRun: query.dry_run,
    patch: body.config,
    now,
    actor: userActor(user.sub),
  });
  return updateAnswer(answer);
});
