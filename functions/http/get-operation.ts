import { getOperation } from '../adapters/dynamo/operations-repo';
import { operationNotFound } from '../core/errors';
import { OPERATION_ID, operationView } from '../core/operations';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.getOperation, async ({ caller, params }) => {
  const id = params.operation_id.toLowerCase();
  const found = OPERATION_ID.test(id) ? await getOperation(caller.orgId, id) : undefined;
  if (!found) throw operationNotFound(params.operation_id);
  return { data: operationView(found) };
});
