import * as routes from '../../contract/routes.js';
import { updateDeployment } from '../app/update-config.js';
import { httpBodyRoute } from '../middleware/body-route.js';
import { updateAnswer } from '../middleware/responses.js';

export const handler = httpBodyRoute(routes.updateDeployment, async ({ caller, params, query, body, event, now }) =>
  updateAnswer(
    await updateDeployment({
      orgId: caller.orgId,
      deploymentId: params.deployment_id,
      ifMatch: event.headers['if-match'],
      dryRun: query.dry_run,
      patch: body.config,
      now,
      actor: caller.actor,
    }),
  ),
);
