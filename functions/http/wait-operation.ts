import * as routes from '../../contract/routes.js';
import { waitForOperation } from '../app/wait-for-operation.js';
import { operationView } from '../core/operations.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.waitOperation, async ({ caller, params, query }) => ({
  data: operationView(await waitForOperation(caller.orgId, params.operation_id, { phase: query.phase, timeoutSeconds: query.timeout })),
}));
