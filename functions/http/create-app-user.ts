import { provisionAppUser } from '../core/deployment-commands.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.createAppUser, ({ caller, params, body, idempotency, now }) =>
  provisionAppUser({ orgId: caller.orgId, deploymentId: params.deployment_id, user: body, idempotency, now }),
);
