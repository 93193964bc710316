import { listDeployments } from '../adapters/dynamo/deployments-repo';
import { deploymentView } from '../core/deployments';
import { listLinks } from '../core/pagination';
import { config } from '../lib/config';
import { httpHandler } from '../lib/http';
import { routes } from '../routes';

export const handler = httpHandler(routes.listDeployments, async ({ caller, query }) => {
  const { items, pagination } = await listDeployments(caller.orgId, query);
  return {
    data: {
      items: items.map((d) => deploymentView(d, config().appDomain)),
      pagination,
      links: listLinks(routes.listDeployments.path, { status: query.status }, pagination),
    },
  };
});
