/**
 * The dispatcher's half of webhook delivery (decision 38): an event → one queued delivery per webhook of its
 * organization subscribed to its type. Apart from the deliverer (webhook-deliveries.ts),
 * which opens the webhooks' secrets (KMS), as the dispatcher never does.
 */

import type { Event } from '../../contract/schemas.js';
import { listWebhooks } from '../adapters/dynamo/webhook-store.js';
import { deliveryQueue } from '../adapters/sqs/delivery-queue.js';

/** Queues the first attempt of every delivery the event calls for. */
export async function dispatchEvent(orgId: string, event: Event): Promise<number> {
  const subscribed = (await listWebhooks(orgId)).filter((w) => w.events.includes(event.type));
  await Promise.all(
    subscribed.map((w) => deliveryQueue().enqueue({ orgId, webhookId: w.id, eventSequence: event.sequence, attempt: 1 }, 0)),
  );
  return subscribed.length;
}
