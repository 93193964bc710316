/** Webhook endpoints (decision 38): created with a fresh secret, shown once and stored sealed. */
import { randomUUID } from 'node:crypto';
import { apiError, invalidRequest } from '../../contract/errors.js';
import type { CreateWebhookBody, Webhook } from '../../contract/schemas.js';
import { EVENT_TYPES } from '../../contract/vocabulary.js';
import { newWebhookSecret } from '../../contract/webhook-signature.js';
import { getWebhook, insertWebhook, type WebhookRecord } from '../adapters/dynamo/webhook-store.js';
import { webhookUrlProblem } from '../adapters/http-out/safe-post.js';
import { secretSealer } from '../adapters/kms/secret-sealer.js';
import { config } from '../lib/config.js';
import { webhookView } from './webhook-view.js';

export const WEBHOOK_LIMIT = 10;

export async function createWebhook(orgId: string, body: CreateWebhookBody, now: Date): Promise<Webhook & { secret: string }> {
  const problem = webhookUrlProblem(body.url, config().webhooks.allowInsecure);
  if (problem) throw invalidRequest('The request body is invalid.', [{ field: 'url', issue: problem }]);
  const secret = newWebhookSecret();
  const id = `wh_${randomUUID().replaceAll('-', '')}`;
  const record: WebhookRecord = {
    id,
    org_id: orgId,
    // The URL as it is parsed and delivered to (WHATWG), never the text as sent.
    url: new URL(body.url).href,
    events: body.events ? [...new Set(body.events)] : [...EVENT_TYPES],
    description: body.description ?? null,
    created_at: now.toISOString(),
    secret_sealed: await secretSealer().seal(secret, { purpose: 'delivery', orgId, recordId: id }),
    delivery_count: 0,
  };
  if (!(await insertWebhook(record, WEBHOOK_LIMIT))) throw apiError('WEBHOOK_LIMIT_REACHED', { limit: WEBHOOK_LIMIT });
  return { ...webhookView(record), secret };
}

/** What an Idempotency-Key replay of a creation may show (middleware/idempotency.ts): the secret only while the webhook exists. */
export const webhookReplay = {
  redact: (data: unknown): unknown => {
    const { secret: _secret, ...rest } = data as { secret?: string };
    return rest;
  },
  stillExists: async (orgId: string, data: unknown): Promise<boolean> => {
    const id = (data as { id?: unknown }).id;
    return typeof id === 'string' && (await getWebhook(orgId, id)) !== undefined;
  },
};
