import * as routes from '../../contract/routes.js';
import { rollbackDeployment } from '../app/deployment-updates.js';
import { httpBodyRoute } from '../middleware/body-route.js';
import { updateAnswer } from '../middleware/responses.js';

export const handler = httpBodyRoute(routes.rollbackDeployment, async ({ caller, params, query, body, event, now }) =>
  updateAnswer(
    await rollbackDeployment({
      orgId: caller.orgId,
      deploymentId: params.deployment_id,
      ifMatch: event.headers['if-match'],
      dryRun: query.dry_run,
      revision: body.revision,
      now,
      actor: caller.actor,
    }),
  ),
);
