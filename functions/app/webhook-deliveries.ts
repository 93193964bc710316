/**
 * From an event to its webhooks (decision 38): the dispatcher queues one delivery per
 * subscribed webhook (webhook-dispatch.ts); the deliverer signs it (Standard Webhooks),
 * POSTs it through the safe outbound client, records the attempt, and queues the next
 * attempt after the delay of WEBHOOK_RETRY_SCHEDULE until it succeeds or the schedule runs out.
 */

import type { DeliveryOutcome } from '../../contract/metric-catalogue.js';
import { signatureHeaders } from '../../contract/webhook-signature.js';
import { getEvent } from '../adapters/dynamo/event-reads.js';
import { getWebhook, recordDelivery } from '../adapters/dynamo/webhook-store.js';
import { safePost } from '../adapters/http-out/safe-post.js';
import { secretSealer } from '../adapters/kms/secret-sealer.js';
import { deliveryQueue } from '../adapters/sqs/delivery-queue.js';
import type { DeliveryMessage } from '../core/delivery-queue.js';
import { config } from '../lib/config.js';
import { logger } from '../lib/logger.js';

/** How an attempt ended, and for a delivered one, how long after its event was written the receiver acknowledged it. */
export interface Attempted {
  outcome: DeliveryOutcome;
  latencyMs?: number;
}

/**
 * One attempt of one delivery; the next one is queued when it fails and the schedule
 * allows. Undefined when nothing was attempted (not due yet, the webhook or event gone).
 */
export async function deliverOnce(m: DeliveryMessage, now = () => new Date()): Promise<Attempted | undefined> {
  const early = (m.notBefore ?? 0) - now().getTime();
  if (early > 0) {
    // Waited the longest delay the queue has, not yet the whole retry delay: wait the rest.
    await deliveryQueue().enqueue({ ...m, notBefore: undefined }, Math.ceil(early / 1000));
    return undefined;
  }
  const webhook = await getWebhook(m.orgId, m.webhookId);
  if (!webhook) return undefined; // deleted since: nothing to deliver to
  const event = await getEvent(m.orgId, m.eventSequence);
  if (!event) return undefined;
  const { allowInsecure, retrySchedule } = config().webhooks;
  const body = JSON.stringify(event);
  const at = now();
  const headers = {
    'Content-Type': 'application/json',
    ...signatureHeaders(
      await secretSealer().open(webhook.secret_sealed, { purpose: 'delivery', orgId: m.orgId, recordId: webhook.id }),
      event.id,
      Math.floor(at.getTime() / 1000),
      body,
    ),
  };
  const answer = await safePost(webhook.url, body, headers, { allowInsecure });
  const answered = now();
  const succeeded = answer.status !== null && answer.status >= 200 && answer.status < 300;
  await recordDelivery(m.orgId, m.webhookId, {
    event_id: event.id,
    attempt: m.attempt,
    attempted_at: at.toISOString(),
    status_code: answer.status,
    succeeded,
  });
  if (succeeded) return { outcome: 'delivered', latencyMs: Math.max(0, answered.getTime() - Date.parse(event.created_at)) };
  const delay = retrySchedule[m.attempt - 1];
  logger.info('webhook delivery failed', {
    webhook_id: m.webhookId,
    event_id: event.id,
    attempt: m.attempt,
    status: answer.status,
    reason: answer.error,
    retry_in_s: delay ?? null,
  });
  if (delay === undefined) return { outcome: 'gave_up' };
  await deliveryQueue().enqueue({ ...m, attempt: m.attempt + 1 }, delay);
  return { outcome: 'retrying' };
}
