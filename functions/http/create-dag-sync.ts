import { startDagSync } from '../core/deployment-commands.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.createDagSync, ({ caller, params, idempotency, now }) =>
  startDagSync({ orgId: caller.orgId, deploymentId: params.deployment_id, idempotency, now }),
);
