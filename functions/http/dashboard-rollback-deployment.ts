import { confirmUserInPool } from '../app/dashboard-users.js';
import { rollbackDeployment } from '../app/deployment-updates.js';
import { dashboardRoutes } from '../dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import { updateAnswer } from '../middleware/responses.js';

export const handler = dashboardRoute(dashboardRoutes.rollbackDeployment, async ({ user, params, query, body, event, now }) => {
  await confirmUserInPool(user);
  // actor: user — the change is the signed-in user's (decision 46), once the command takes an actor.
  const answer = await rollbackDeployment({
    orgId: user.orgId,
    deploymentId: params.deployment_id,
    ifMatch: event.headers['if-match'],
    dryRun: query.dry_run,
    revision: body.revision,
    now,
  });
  return updateAnswer(answer);
});
