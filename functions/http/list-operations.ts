import * as routes from '../../contract/routes.js';
import { listOperations } from '../adapters/dynamo/operation-reads.js';
import { operationView } from '../core/operations.js';
import { listLinks } from '../core/pagination.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listOperations, async ({ caller, query }) => {
  const { items, pagination } = await listOperations(
    caller.orgId,
    { status: query.status, type: query.type, resourceId: query.resource_id },
    query,
  );
  return {
    data: {
      items: items.map(operationView),
      pagination,
      links: listLinks(routes.listOperations.path, { status: query.status, type: query.type, resource_id: query.resource_id }, pagination),
    },
  };
});
