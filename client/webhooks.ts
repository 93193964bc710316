/**
 * Checking a webhook delivery (decision 38, the Standard Webhooks specification) before
 * trusting it:
 *
 *   const event = verifyWebhook(process.env.WEBHOOK_SECRET!, req.headers, rawBody);
 *
 * Pass the body exactly as received (parsing and re-serialising it changes the bytes
 * that were signed). Answer 2xx quickly; any other answer is retried with the same
 * `webhook-id`, so use `event.id` to skip a delivery already handled.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Event } from '../contract/schemas.js';
import { SIGNATURE_SCHEME, webhookSecretKey, webhookSignature } from '../contract/webhook-signature.js';

/** How far the signed timestamp may be from the receiver's clock: bounds how long a captured delivery can be replayed. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

/** The delivery is not one the holder of the secret signed, or it is too old (or too new) to trust. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** A `Headers`, or a plain object with names in any case (Node's `req.headers` fits). */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** Seconds the `webhook-timestamp` may differ from `now`, either way. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock. Default: the current time. */
  now?: Date;
}

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function')
    return (headers as Headers).get(name) ?? undefined;
  let found: string | undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    // Repeated headers (or repeated keys in other cases) are one space-separated list, as the signature header's own.
    const text = typeof value === 'string' ? value : value.join(' ');
    found = found === undefined ? text : `${found} ${text}`;
  }
  return found;
}

/**
 * Verifies a delivery and returns its event. Throws WebhookVerificationError when a header
 * is missing, the timestamp is outside the tolerance, no `v1` signature matches (compared
 * in constant time; several, space-separated, may be sent while a secret is rotated), or
 * the signed body is not a JSON object. A malformed `secret` is a TypeError.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): Event {
  const { toleranceSeconds = DEFAULT_WEBHOOK_TOLERANCE_SECONDS, now = new Date() } = options;
  // A misconfigured secret fails every call the same way, whatever the request.
  webhookSecretKey(secret);
  const id = headerOf(headers, 'webhook-id');
  const timestamp = headerOf(headers, 'webhook-timestamp');
  const signatures = headerOf(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature');

  if (!/^\d{1,15}$/.test(timestamp)) throw new WebhookVerificationError(`Invalid webhook-timestamp: ${timestamp}`);
  const sentAt = Number(timestamp);
  const skew = Math.floor(now.getTime() / 1000) - sentAt;
  if (skew > toleranceSeconds) throw new WebhookVerificationError(`The delivery is too old (signed ${skew} s ago)`);
  if (-skew > toleranceSeconds) throw new WebhookVerificationError(`The delivery is signed ${-skew} s in the future`);

  const expected = Buffer.from(webhookSignature(secret, id, sentAt, body));
  let matched = false;
  for (const candidate of signatures.split(' ')) {
    const comma = candidate.indexOf(',');
    if (comma < 0 || candidate.slice(0, comma) !== SIGNATURE_SCHEME) continue;
    const given = Buffer.from(candidate.slice(comma + 1));
    // Only the length can differ publicly (every v1 signature has the same); the bytes are compared in constant time.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) throw new WebhookVerificationError('No matching webhook signature');

  let event: unknown;
  try {
    event = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('The webhook body is not JSON');
  }
  if (!event || typeof event !== 'object' || Array.isArray(event)) throw new WebhookVerificationError('The webhook body is not an event');
  return event as Event;
}
