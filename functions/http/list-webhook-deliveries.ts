import * as routes from '../../contract/routes.js';
import { listDeliveries } from '../adapters/dynamo/webhook-store.js';
import { findWebhook } from '../app/lookups.js';
import { listLinks } from '../core/pagination.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.listWebhookDeliveries, async ({ caller, params, query }) => {
  const webhook = await findWebhook(caller.orgId, params.webhook_id);
  const { items, pagination } = await listDeliveries(webhook, query);
  return { data: { items, pagination, links: listLinks(`/webhooks/${webhook.id}/deliveries`, {}, pagination) } };
});
