import * as routes from '../../contract/routes.js';
import { secretSealer } from '../adapters/kms/secret-sealer.js';
import { appUserReplay, provisionAppUser } from '../app/app-users.js';
import { httpBodyRoute } from '../middleware/body-route.js';
import { accepted } from '../middleware/responses.js';

export const handler = httpBodyRoute(
  routes.createAppUser,
  async ({ caller, params, body, now }) => {
    const started = await provisionAppUser({
      orgId: caller.orgId,
      deploymentId: params.deployment_id,
      user: body,
      now,
      actor: caller.actor,
    });
    const answer = accepted(started);
    // Decision 51: the password is shown in this answer only.
    return { ...answer, data: { ...(answer.data as object), initial_password: started.password } };
  },
  { sealer: secretSealer, ...appUserReplay },
);
