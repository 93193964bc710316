import * as routes from '../../contract/routes.js';
import { findOperation } from '../app/lookups.js';
import { operationView } from '../core/operations.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.getOperation, async ({ caller, params }) => ({
  data: operationView(await findOperation(caller.orgId, params.operation_id)),
}));
