import * as routes from '../../contract/routes.js';
import { deploymentRevisions } from '../app/deployment-revisions.js';
import { listLinks } from '../core/pagination.js';
import { revisionView } from '../core/revisions.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listRevisions, async ({ caller, params, query }) => {
  const { items, pagination } = await deploymentRevisions(caller.orgId, params.deployment_id, query);
  const path = routes.listRevisions.path.replace('{deployment_id}', params.deployment_id);
  return { data: { items: items.map(revisionView), pagination, links: listLinks(path, {}, pagination) } };
});
