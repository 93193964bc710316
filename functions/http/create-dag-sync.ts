import { startDagSync } from '../core/deployment-commands';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.createDagSync, ({ caller, params, idempotency, now }) =>
  startDagSync({ orgId: caller.orgId, deploymentId: params.deployment_id, idempotency, now }));
