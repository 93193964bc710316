import * as routes from '../../contract/routes.js';
import { cancelOperation } from '../app/deployment-commands.js';
import { httpBodyRoute } from '../middleware/body-route.js';

export const handler = httpBodyRoute(routes.cancelOperation, async ({ caller, params, now }) => ({
  data: await cancelOperation(caller.orgId, params.operation_id, now, caller.actor),
}));
