import * as dashboard from '../../contract/dashboard-routes.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { rollbackDeployment } from '../app/deployment-updates.js';
import { userActor } from '../core/events.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import { updateAnswer } from '../middleware/responses.js';

export const handler = dashboardRoute(dashboard.rollbackDeployment, async ({ user, params, query, body, event, now }) => {
  await confirmUserInPool(user);
  // The change is the signed-in user's (decision 46).
  const answer = await rollbackDeployment({
    orgId: user.orgId,
    deploymentId: params.deployment_id,
    ifMatch: event.headers['if-match'],
    dryRun: query.dry_run,
    revision: body.revision,
    now,
    actor: userActor(user.sub),
  });
  return updateAnswer(answer);
});
