import * as routes from '../../contract/routes.js';
import { secretSealer } from '../adapters/kms/secret-sealer.js';
import { createWebhook, webhookReplay } from '../app/webhooks.js';
import { httpBodyRoute } from '../middleware/body-route.js';

export const handler = httpBodyRoute(
  routes.createWebhook,
  async ({ caller, body, now }) => {
    const created = await createWebhook(caller.orgId, body, now);
    return { status: 201, data: created, headers: { Location: created.links.self } };
  },
  { sealer: secretSealer, ...webhookReplay },
);
