import { findOperation } from '../app/lookups.js';
import { operationView } from '../core/operations.js';
import { httpRoute } from '../middleware/http-route.js';
import * as routes from '../routes.js';

export const handler = httpRoute(routes.getOperation, async ({ caller, params }) => ({
  data: operationView(await findOperation(caller.orgId, params.operation_id)),
}));
