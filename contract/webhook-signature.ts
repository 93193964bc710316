/**
 * Webhook signatures (decision 38), as the Standard Webhooks specification defines them:
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
 * keyed with the bytes the secret's base64 part decodes to. The service signs with it;
 * the client's `verifyWebhook` checks with it.
 */
import { createHmac, randomBytes } from 'node:crypto';

/** Marks a string as a webhook signing secret (the Standard Webhooks convention). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** 256 bits: as long as the SHA-256 output, the most an HMAC-SHA256 key adds. */
const SECRET_KEY_BYTES = 32;
/** The scheme tag before each signature; a receiver skips tags it does not know, so schemes can be added later. */
export const SIGNATURE_SCHEME = 'v1';

/** A type, not an interface, so it fits `Record<string, string>` (fetch's and http's header maps). */
export type SignatureHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** A fresh secret: `whsec_` + base64 of 32 random bytes (shown to the client once). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_KEY_BYTES).toString('base64');
}

/** The HMAC key of a secret (`whsec_` optional, as other Standard Webhooks libraries accept). Throws TypeError if it is not base64. */
export function webhookSecretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  // Buffer's decoder skips characters outside the alphabet: a mangled secret must fail loudly instead.
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(encoded) || encoded === '')
    throw new TypeError(`A webhook secret is ${WEBHOOK_SECRET_PREFIX} followed by base64`);
  return Buffer.from(encoded, 'base64');
}

/** The base64 HMAC-SHA256 of `<id>.<timestamp>.<body>` (without the `v1,` tag). */
export function webhookSignature(secret: string, eventId: string, timestampSeconds: number, body: string | Uint8Array): string {
  return createHmac('sha256', webhookSecretKey(secret)).update(`${eventId}.${timestampSeconds}.`).update(body).digest('base64');
}

/**
 * The signature headers of one delivery attempt. `body` must be the exact text sent;
 * `timestampSeconds` is the attempt's time (a retry is signed anew, with the same id).
 * Content-Type is not among them: it is not signed, and belongs with the body.
 */
export function signatureHeaders(secret: string, eventId: string, timestampSeconds: number, body: string | Uint8Array): SignatureHeaders {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0)
    throw new RangeError(`webhook-timestamp must be whole Unix seconds, not ${timestampSeconds}`);
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `${SIGNATURE_SCHEME},${webhookSignature(secret, eventId, timestampSeconds, body)}`,
  };
}
