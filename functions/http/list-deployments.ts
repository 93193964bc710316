import * as routes from '../../contract/routes.js';
import { listDeployments } from '../adapters/dynamo/deployment-reads.js';
import { deploymentView } from '../core/deployments.js';
import { listLinks } from '../core/pagination.js';
import { config } from '../lib/config.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listDeployments, async ({ caller, query }) => {
  const { items, pagination } = await listDeployments(caller.orgId, query);
  return {
    data: {
      items: items.map((d) => deploymentView(d, config().appDomain)),
      pagination,
      links: listLinks(routes.listDeployments.path, { status: query.status }, pagination),
    },
  };
});
