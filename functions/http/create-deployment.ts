import { createDeployment } from '../core/deployment-commands';
import { config } from '../lib/config';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.createDeployment, ({ caller, body, idempotency, now }) =>
  createDeployment({ orgId: caller.orgId, body, idempotency, limits: config().limits, now }));
