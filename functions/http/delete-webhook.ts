import { apiError } from '../../contract/errors.js';
import * as routes from '../../contract/routes.js';
import { deleteWebhook } from '../adapters/dynamo/webhook-store.js';
import { findWebhook } from '../app/lookups.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.deleteWebhook, async ({ caller, params }) => {
  const webhook = await findWebhook(caller.orgId, params.webhook_id);
  if (!(await deleteWebhook(caller.orgId, webhook.id))) throw apiError('WEBHOOK_NOT_FOUND', { id: params.webhook_id });
  return { data: { id: webhook.id, deleted: true } };
});
