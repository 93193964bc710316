/**
 * Webhook signatures (decision 38) against the Standard Webhooks reference library
 * (`standardwebhooks`): what the service signs, it verifies; what it signs, the client's
 * verifyWebhook verifies; and neither accepts a changed body, another secret, a stale
 * timestamp or a signature that is not there.
 */
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../../client/index.js';
import { CreatedWebhook } from '../../contract/schemas.js';
import { newWebhookSecret, signatureHeaders, webhookSecretKey } from '../../contract/webhook-signature.js';
import { eventExampleOf } from '../../functions/docs/openapi-examples.js';

const event = eventExampleOf('operation.updated');
const body = JSON.stringify(event);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** What the reference library's sign() produces, as the three headers. */
function referenceHeaders(secret: string, id: string, timestampSeconds: number, payload: string) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': new ReferenceWebhook(secret).sign(id, new Date(timestampSeconds * 1000), payload),
  };
}

function verificationError(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('newWebhookSecret', () => {
  it('is whsec_ and the base64 of 32 random bytes', () => {
    const secrets = Array.from({ length: 200 }, () => newWebhookSecret());
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
      expect(webhookSecretKey(secret)).toHaveLength(32);
      // The shape the API promises in POST /webhooks' answer.
      expect(CreatedWebhook.shape.secret.safeParse(secret).success).toBe(true);
    }
    expect(new Set(secrets).size).toBe(secrets.length);
    // Random bytes: every base64 character shows up somewhere in 200 secrets (8,600 characters).
    expect(new Set(secrets.join('')).size).toBeGreaterThan(60);
  });

  it('refuses a secret that is not base64, rather than signing with part of it', () => {
    expect(() => signatureHeaders('whsec_not base64!', event.id, nowSeconds(), body)).toThrow(TypeError);
    expect(() => signatureHeaders('whsec_', event.id, nowSeconds(), body)).toThrow(TypeError);
    expect(() => verifyWebhook('whsec_a$b', {}, body)).toThrow(TypeError);
  });
});

describe('signatureHeaders', () => {
  it('matches the Standard Webhooks test vector', () => {
    // From the specification's reference libraries.
    const headers = signatureHeaders(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(headers).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('is verified by the reference library, which returns the event', () => {
    const secret = newWebhookSecret();
    const headers = signatureHeaders(secret, event.id, nowSeconds(), body);
    expect(headers['webhook-id']).toBe(event.id);
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new ReferenceWebhook(secret).verify(body, { ...headers })).toEqual(event);
    // As a receiver sees the request: with its Content-Type, names in another case.
    const received = Object.fromEntries(
      Object.entries({ 'Content-Type': 'application/json', ...headers }).map(([k, v]) => [k.toUpperCase(), v]),
    );
    expect(new ReferenceWebhook(secret).verify(body, received)).toEqual(event);
    // A Buffer body is signed over the same bytes.
    expect(signatureHeaders(secret, event.id, Number(headers['webhook-timestamp']), Buffer.from(body))).toEqual(headers);
  });

  it('is refused by the reference library for a changed body, another secret or a stale timestamp', () => {
    const secret = newWebhookSecret();
    const headers = { ...signatureHeaders(secret, event.id, nowSeconds(), body) };
    expect(() => new ReferenceWebhook(secret).verify(body.replace('running', 'failed'), headers)).toThrow(/No matching signature/);
    expect(() => new ReferenceWebhook(newWebhookSecret()).verify(body, headers)).toThrow(/No matching signature/);
    expect(() => new ReferenceWebhook(secret).verify(body, { ...headers, 'webhook-id': 'evt_other' })).toThrow(/No matching signature/);
    const stale = { ...signatureHeaders(secret, event.id, nowSeconds() - 600, body) };
    expect(() => new ReferenceWebhook(secret).verify(body, stale)).toThrow(/too old/);
  });

  it('signs each attempt anew: same id, own timestamp, own signature', () => {
    const secret = newWebhookSecret();
    const first = signatureHeaders(secret, event.id, 1_790_000_000, body);
    const retry = signatureHeaders(secret, event.id, 1_790_000_005, body);
    expect(retry['webhook-id']).toBe(first['webhook-id']);
    expect(retry['webhook-signature']).not.toBe(first['webhook-signature']);
    expect(() => signatureHeaders(secret, event.id, 1_790_000_000.5, body)).toThrow(RangeError);
  });
});

describe('verifyWebhook', () => {
  it('accepts what the reference library signs, with headers as a Headers or a plain object in any case', () => {
    const secret = newWebhookSecret();
    const headers = referenceHeaders(secret, event.id, nowSeconds(), body);
    const verified = verifyWebhook(secret, headers, body);
    expect(verified).toEqual(event);
    // Typed as the Event schema's type.
    expect(verified.data.object.id).toBe(event.data.object.id);
    expect(verifyWebhook(secret, new Headers(headers), body)).toEqual(event);
    const shouting = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(secret, shouting, Buffer.from(body))).toEqual(event);
    expect(
      verifyWebhook(secret, { ...headers, 'Webhook-Signature': [headers['webhook-signature']], 'webhook-signature': undefined }, body),
    ).toEqual(event);
    // And what the service signs, of course.
    expect(verifyWebhook(secret, signatureHeaders(secret, event.id, nowSeconds(), body), body)).toEqual(event);
  });

  it('refuses a changed body, another secret, another id, and a missing or malformed header', () => {
    const secret = newWebhookSecret();
    const headers = referenceHeaders(secret, event.id, nowSeconds(), body);
    const cases: [string, () => unknown, RegExp][] = [
      ['changed body', () => verifyWebhook(secret, headers, body.replace('running', 'failed')), /No matching/],
      ['one more space', () => verifyWebhook(secret, headers, `${body} `), /No matching/],
      ['another secret', () => verifyWebhook(newWebhookSecret(), headers, body), /No matching/],
      ['another id', () => verifyWebhook(secret, { ...headers, 'webhook-id': 'evt_other' }, body), /No matching/],
      ['no signature', () => verifyWebhook(secret, { ...headers, 'webhook-signature': '' }, body), /Missing/],
      [
        'no id',
        () => verifyWebhook(secret, { 'webhook-timestamp': headers['webhook-timestamp'], 'webhook-signature': 'v1,x' }, body),
        /Missing/,
      ],
      [
        'timestamp not a number',
        () => verifyWebhook(secret, { ...headers, 'webhook-timestamp': '17e8' }, body),
        /Invalid webhook-timestamp/,
      ],
      [
        'an unknown scheme only',
        () => verifyWebhook(secret, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, body),
        /No matching/,
      ],
      [
        'a truncated signature',
        () => verifyWebhook(secret, { ...headers, 'webhook-signature': headers['webhook-signature'].slice(0, -2) }, body),
        /No matching/,
      ],
    ];
    for (const [name, run, message] of cases) {
      const e = verificationError(run);
      expect({ name, isVerificationError: e instanceof WebhookVerificationError }).toEqual({ name, isVerificationError: true });
      expect({ name, message: (e as Error).message }).toEqual({ name, message: expect.stringMatching(message) });
    }
  });

  it('refuses a timestamp outside the tolerance, either way (default 5 minutes)', () => {
    const secret = newWebhookSecret();
    const at = 1_790_000_000;
    const now = new Date(at * 1000);
    const signedAt = (t: number) => referenceHeaders(secret, event.id, t, body);
    expect(verifyWebhook(secret, signedAt(at - 300), body, { now })).toEqual(event);
    expect(verifyWebhook(secret, signedAt(at + 300), body, { now })).toEqual(event);
    expect(() => verifyWebhook(secret, signedAt(at - 301), body, { now })).toThrow(/too old/);
    expect(() => verifyWebhook(secret, signedAt(at + 301), body, { now })).toThrow(/in the future/);
    expect(() => verifyWebhook(secret, signedAt(at - 30), body, { now, toleranceSeconds: 10 })).toThrow(WebhookVerificationError);
    expect(verifyWebhook(secret, signedAt(at - 3600), body, { now, toleranceSeconds: 3600 })).toEqual(event);
    // Without `now`, the current time: a delivery signed an hour ago is refused.
    expect(() => verifyWebhook(secret, signedAt(nowSeconds() - 3600), body)).toThrow(/too old/);
  });

  it('accepts the delivery when any of several space-separated signatures matches (secret rotation)', () => {
    const secret = newWebhookSecret();
    const oldSecret = newWebhookSecret();
    const t = nowSeconds();
    const valid = referenceHeaders(secret, event.id, t, body)['webhook-signature'];
    const other = referenceHeaders(oldSecret, event.id, t, body)['webhook-signature'];
    const headers = (signature: string) => ({ 'webhook-id': event.id, 'webhook-timestamp': String(t), 'webhook-signature': signature });
    for (const list of [`${other} ${valid}`, `${valid} ${other}`, `v2,abcd ${valid}`, `v1,short ${other} ${valid}`]) {
      expect(verifyWebhook(secret, headers(list), body)).toEqual(event);
      // The reference library agrees.
      expect(new ReferenceWebhook(secret).verify(body, headers(list))).toEqual(event);
    }
    expect(verifyWebhook(oldSecret, headers(`${other} ${valid}`), body)).toEqual(event);
    expect(() => verifyWebhook(newWebhookSecret(), headers(`${other} ${valid}`), body)).toThrow(/No matching/);
    expect(() => verifyWebhook(secret, headers(`${other} v1,${'A'.repeat(43)}=`), body)).toThrow(WebhookVerificationError);
  });

  it('refuses a correctly signed body that is not a JSON object', () => {
    const secret = newWebhookSecret();
    for (const payload of ['not json', '[1,2]', 'null']) {
      const headers = referenceHeaders(secret, 'evt_x', nowSeconds(), payload);
      expect(() => verifyWebhook(secret, headers, payload)).toThrow(WebhookVerificationError);
    }
  });
});
