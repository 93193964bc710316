/**
 * A webhook as the API shows it. Its own module: the list and get functions need only
 * this, not the creation path's secret sealing and URL checks (ipaddr.js) with it.
 */

import { webhookPath } from '../../contract/paths.js';
import type { Webhook } from '../../contract/schemas.js';
import type { WebhookRecord } from '../adapters/dynamo/webhook-store.js';

export const webhookView = (w: WebhookRecord): Webhook => ({
  id: w.id,
  url: w.url,
  events: w.events,
  description: w.description,
  created_at: w.created_at,
  links: { self: webhookPath(w.id) },
});
