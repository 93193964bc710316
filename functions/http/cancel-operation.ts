import { cancelOperation } from '../core/deployment-commands';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.cancelOperation, async ({ caller, params, now }) => ({
  data: await cancelOperation(caller.orgId, params.operation_id, now),
}));
