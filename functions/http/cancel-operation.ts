import { cancelOperation } from '../core/deployment-commands.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.cancelOperation, async ({ caller, params, now }) => ({
  data: await cancelOperation(caller.orgId, params.operation_id, now),
}));
