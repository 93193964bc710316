import { findOperation } from '../core/lookups';
import { operationView } from '../core/operations';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.getOperation, async ({ caller, params }) => ({
  data: operationView(await findOperation(caller.orgId, params.operation_id)),
}));
