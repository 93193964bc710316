import { findOperation } from '../core/lookups.js';
import { operationView } from '../core/operations.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.getOperation, async ({ caller, params }) => ({
  data: operationView(await findOperation(caller.orgId, params.operation_id)),
}));
