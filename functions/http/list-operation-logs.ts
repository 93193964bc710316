import * as routes from '../../contract/routes.js';
import { operationLog } from '../app/operation-logs.js';
import { listLinks } from '../core/pagination.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listOperationLogs, async ({ caller, params, query }) => {
  const { items, pagination } = await operationLog(caller.orgId, params.operation_id, query);
  const path = routes.listOperationLogs.path.replace('{operation_id}', params.operation_id);
  return { data: { items, pagination, links: listLinks(path, {}, pagination) } };
});
