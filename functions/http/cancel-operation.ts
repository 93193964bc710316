import { cancelOperation } from '../app/deployment-commands.js';
import { httpRoute } from '../middleware/http-route.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.cancelOperation, async ({ caller, params, now }) => ({
  data: await cancelOperation(caller.orgId, params.operation_id, now, caller.actor),
}));
