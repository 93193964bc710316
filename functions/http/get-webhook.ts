import * as routes from '../../contract/routes.js';
import { findWebhook } from '../app/lookups.js';
import { webhookView } from '../app/webhook-view.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.getWebhook, async ({ caller, params }) => ({
  data: webhookView(await findWebhook(caller.orgId, params.webhook_id)),
}));
