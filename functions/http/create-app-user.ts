import { provisionAppUser } from '../core/deployment-commands';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.createAppUser, ({ caller, params, body, idempotency, now }) =>
  provisionAppUser({ orgId: caller.orgId, deploymentId: params.deployment_id, user: body, idempotency, now }));
