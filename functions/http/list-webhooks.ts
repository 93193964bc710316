import * as routes from '../../contract/routes.js';
import { listWebhooks } from '../adapters/dynamo/webhook-store.js';
import { webhookView } from '../app/webhook-view.js';
import { listLinks, pageWindow } from '../core/pagination.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listWebhooks, async ({ caller, query }) => {
  // An organization has at most ten: read them all, page in memory.
  const all = await listWebhooks(caller.orgId);
  const { pagination } = pageWindow(all.length, query);
  const skip = (query.page - 1) * query.per_page;
  const items = all.slice(skip, skip + query.per_page).map(webhookView);
  return { data: { items, pagination, links: listLinks(routes.listWebhooks.path, {}, pagination) } };
});
