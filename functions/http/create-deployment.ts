import { createDeployment } from '../core/deployment-commands.js';
import { config } from '../lib/config.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.createDeployment, ({ caller, body, idempotency, now }) =>
  createDeployment({ orgId: caller.orgId, body, idempotency, limits: config().limits, now }),
);
