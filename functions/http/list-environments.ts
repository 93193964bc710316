import * as routes from '../../contract/routes.js';
import { getOrg } from '../adapters/dynamo/org-reads.js';
import { environmentsOf } from '../core/environments.js';
import { listLinks, pageWindow } from '../core/pagination.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listEnvironments, async ({ caller, query }) => {
  const org = await getOrg(caller.orgId);
  const all = environmentsOf(typeof org.created_at === 'string' ? org.created_at : caller.record.created_at);
  const { pagination, from, to } = pageWindow(all.length, query);
  // Newest first: sequence n is all[n - 1].
  const items = all.slice(from - 1, Math.max(from - 1, to)).reverse();
  return { data: { items, pagination, links: listLinks(routes.listEnvironments.path, {}, pagination) } };
});
