/**
 * Rate limits (decision 32) against DynamoDB Local: the one conditional
 * UpdateItem on the key's item (admitRequest) lets exactly the limit through however many
 * requests race, refuses the rest with 429 and the right Retry-After, and counts clock windows.
 * The limiter tests pass a fixed `now`, so a real clock minute rolling over cannot
 * change their outcome; the dates are in the future, so TTL never removes an item.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '../../contract/errors.js';
import { apiKeyKey } from '../../contract/table/entities.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { admitRequest } from '../../functions/adapters/dynamo/key-admission.js';
import { listUsage } from '../../functions/adapters/dynamo/usage-store.js';
import { generateKey } from '../../functions/core/api-keys.js';
import { type Limits, rateLimitHeaders, type Usage, windowFull } from '../../functions/core/rate-limits.js';
import { config } from '../../functions/lib/config.js';
import { type CallResult, call, createKey, signingSecret, storeKey } from '../helpers/fixtures.js';

// The middleware tests check the documented defaults; config() reads the env on first use.
for (const name of ['RATE_LIMIT_PER_HOUR', 'RATE_LIMIT_PER_MINUTE', 'CREATE_LIMIT_PER_HOUR']) delete process.env[name];

const limits = (perMinute: number, perHour: number): Limits => ({ perMinute, perHour, createsPerHour: 10 });
const at = (iso: string) => new Date(iso);
const epoch = (iso: string) => Date.parse(iso) / 1000;

/** A stored key; the limiter addresses it by its hash, as the middleware does. */
async function newKeyId(): Promise<string> {
  const { record } = generateKey({ orgId: 'org_rate_limits', name: 'limits', now: new Date() }, signingSecret());
  await storeKey(record);
  return record.hash;
}

/** What the middleware makes of an admission: the usage, or the 429. */
async function consumeRequest(hash: string, l: Limits, now: Date): Promise<Usage> {
  const admission = await admitRequest(hash, l, now);
  if (admission.outcome === 'admitted') return admission.usage;
  if (admission.outcome === 'limited') throw windowFull(l, admission.usage, now);
  throw new Error(`unexpected admission: ${admission.outcome}`);
}

/** Fires all requests at once and sorts the outcomes. */
async function burst(keyId: string, l: Limits, now: Date, n: number): Promise<{ ok: Usage[]; refused: ApiError[] }> {
  const results = await Promise.allSettled(Array.from({ length: n }, () => consumeRequest(keyId, l, now)));
  const ok: Usage[] = [];
  const refused: ApiError[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') ok.push(r.value);
    else if (r.reason instanceof ApiError) refused.push(r.reason);
    else throw r.reason;
  }
  return { ok, refused };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the request to be refused');
}

async function storedCounts(hash: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(hash), ConsistentRead: true }));
  return Item;
}

describe('admitRequest: the burst limit', () => {
  it('lets exactly perMinute of a concurrent burst through and refuses the rest with 429', async () => {
    const keyId = await newKeyId();
    const now = at('2031-03-04T10:15:30.000Z');
    const { ok, refused } = await burst(keyId, limits(7, 1000), now, 20);
    expect(ok).toHaveLength(7);
    expect(ok.map((u) => u.minute).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ok.map((u) => u.hour).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(refused).toHaveLength(13);
    for (const e of refused) {
      expect(e.status).toBe(429);
      expect(e.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(e.options.headers?.['Retry-After']).toBe('30');
      expect(e.options.headers?.['X-RateLimit-Remaining']).toBe('0');
      expect(e.options.headers?.['X-RateLimit-Limit']).toBe('1000');
      expect(e.options.headers?.['X-RateLimit-Reset']).toBe(String(epoch('2031-03-04T11:00:00.000Z')));
      expect(e.message).toMatch(/7 requests per minute/);
      expect(e.message).toContain('Retry after 30 seconds');
    }
    expect(await storedCounts(keyId)).toMatchObject({ rate_hour: epoch('2031-03-04T10:00:00.000Z'), rate_n: 7, rate_m15: 7 });
  });

  it('Retry-After runs to the next clock minute: 60 at the first instant of a minute, 1 in its last second', async () => {
    const cases: [string, string][] = [
      ['2031-03-04T10:20:00.000Z', '60'],
      ['2031-03-04T10:20:59.001Z', '1'],
      ['2031-03-04T10:20:44.500Z', '16'],
    ];
    for (const [iso, retryAfter] of cases) {
      const keyId = await newKeyId();
      await consumeRequest(keyId, limits(1, 1000), at(iso));
      const e = await refusal(consumeRequest(keyId, limits(1, 1000), at(iso)));
      expect(e.options.headers?.['Retry-After']).toBe(retryAfter);
      expect(e.message).toContain(`Retry after ${retryAfter} seconds`);
    }
  });
});

describe('admitRequest: the hourly limit', () => {
  it('lets exactly perHour of a concurrent burst through; Retry-After and Reset are the next clock hour', async () => {
    const keyId = await newKeyId();
    const now = at('2031-03-04T10:15:30.000Z');
    const { ok, refused } = await burst(keyId, limits(100, 5), now, 12);
    expect(ok.map((u) => u.hour).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
    expect(refused).toHaveLength(7);
    const toNextHour = String(epoch('2031-03-04T11:00:00.000Z') - epoch('2031-03-04T10:15:30.000Z'));
    expect(toNextHour).toBe('2670');
    for (const e of refused) {
      expect(e.status).toBe(429);
      expect(e.code).toBe('RATE_LIMIT_EXCEEDED');
      expect(e.options.headers?.['Retry-After']).toBe(toNextHour);
      expect(e.options.headers?.['X-RateLimit-Remaining']).toBe('0');
      expect(e.options.headers?.['X-RateLimit-Reset']).toBe(String(epoch('2031-03-04T11:00:00.000Z')));
      expect(e.message).toMatch(/5 requests per hour/);
      expect(e.message).toContain(`Retry after ${toNextHour} seconds`);
    }
  });

  it('names the hourly limit when both windows are full (the longer wait)', async () => {
    const keyId = await newKeyId();
    const now = at('2031-03-04T10:59:10.000Z');
    await burst(keyId, limits(3, 3), now, 3);
    const e = await refusal(consumeRequest(keyId, limits(3, 3), now));
    expect(e.message).toMatch(/per hour/);
    expect(e.options.headers?.['Retry-After']).toBe('50');
  });
});

describe('admitRequest: counting', () => {
  it('headers step down by one per request', async () => {
    const keyId = await newKeyId();
    const l = limits(4, 10);
    const now = at('2031-05-06T07:08:09.000Z');
    const seen: string[][] = [];
    for (let i = 0; i < 4; i++) {
      const h = rateLimitHeaders(l, await consumeRequest(keyId, l, now), now);
      seen.push([h['X-RateLimit-Limit']!, h['X-RateLimit-Remaining']!, h['X-RateLimit-Reset']!]);
      expect(h.RateLimit).toBe(`"hourly";r=${9 - i};t=3111, "burst";r=${3 - i};t=51`);
    }
    const reset = String(epoch('2031-05-06T08:00:00.000Z'));
    expect(seen).toEqual([
      ['10', '9', reset],
      ['10', '8', reset],
      ['10', '7', reset],
      ['10', '6', reset],
    ]);
  });

  it('the next minute resets the burst but not the hour; the next hour resets both', async () => {
    const keyId = await newKeyId();
    const l = limits(3, 5);
    const t0 = at('2031-03-04T10:15:30.000Z');
    const { ok } = await burst(keyId, l, t0, 3);
    expect(ok).toHaveLength(3);
    await refusal(consumeRequest(keyId, l, at('2031-03-04T10:15:59.999Z')));

    const t1 = at('2031-03-04T10:16:00.000Z');
    expect(await consumeRequest(keyId, l, t1)).toEqual({ hour: 4, minute: 1 });
    expect(await consumeRequest(keyId, l, t1)).toEqual({ hour: 5, minute: 2 });
    const hourly = await refusal(consumeRequest(keyId, l, t1));
    expect(hourly.message).toMatch(/per hour/);
    expect(hourly.options.headers?.['Retry-After']).toBe(String(44 * 60));
    // Still refused in a later minute of the same hour.
    await refusal(consumeRequest(keyId, l, at('2031-03-04T10:59:59.000Z')));

    const t2 = at('2031-03-04T11:00:00.000Z');
    expect(await consumeRequest(keyId, l, t2)).toEqual({ hour: 1, minute: 1 });
    // The new hour's first request removed the old minutes: the item never grows past 60 of them.
    const stored = await storedCounts(keyId);
    expect(Object.keys(stored ?? {}).filter((k) => k.startsWith('rate_m'))).toEqual(['rate_m00']);
    expect(stored).toMatchObject({ rate_hour: epoch('2031-03-04T11:00:00.000Z'), rate_n: 1, last_used_at: t2.toISOString() });
  });

  it('refused requests are not counted', async () => {
    const keyId = await newKeyId();
    const l = limits(2, 10);
    const t0 = at('2031-07-01T12:30:10.000Z');
    const { ok, refused } = await burst(keyId, l, t0, 9);
    expect([ok.length, refused.length]).toEqual([2, 7]);
    expect(await storedCounts(keyId)).toMatchObject({ rate_hour: epoch('2031-07-01T12:00:00.000Z'), rate_n: 2, rate_m30: 2 });
    // Had the 7 refusals counted, the hour would now be at 9 of 10.
    expect(await consumeRequest(keyId, l, at('2031-07-01T12:31:00.000Z'))).toEqual({ hour: 3, minute: 1 });
  });

  it('counts each key separately', async () => {
    const [a, b] = [await newKeyId(), await newKeyId()];
    const l = limits(1, 10);
    const now = at('2031-03-04T10:15:30.000Z');
    await consumeRequest(a, l, now);
    await refusal(consumeRequest(a, l, now));
    expect(await consumeRequest(b, l, now)).toEqual({ hour: 1, minute: 1 });
  });
});

describe('admitRequest: the key itself', () => {
  it('refuses an unknown hash, and a revoked or expired key, without counting or stamping it', async () => {
    const l = limits(10, 100);
    expect(await admitRequest('0'.repeat(64), l, new Date())).toEqual({ outcome: 'unknown' });
    const now = at('2031-03-04T10:15:30.000Z');
    const revoked = generateKey({ orgId: 'org_rate_limits', name: 'revoked', now: new Date() }, signingSecret()).record;
    await storeKey({ ...revoked, revoked_at: '2031-01-01T00:00:00.000Z' });
    const expired = generateKey(
      { orgId: 'org_rate_limits', name: 'expired', now: new Date(), expiresAt: now.toISOString() },
      signingSecret(),
    ).record;
    await storeKey(expired);
    for (const record of [revoked, expired]) {
      expect(await admitRequest(record.hash, l, now)).toMatchObject({ outcome: 'unusable', record: { id: record.id } });
      const stored = await storedCounts(record.hash);
      expect(stored?.rate_n).toBeUndefined();
      expect(stored?.last_used_at).toBeNull();
    }
    // One millisecond before its expiry instant the key still works.
    expect(await admitRequest(expired.hash, l, new Date(now.getTime() - 1))).toMatchObject({ outcome: 'admitted' });
  });

  it('returns the record as it was, so the previous last_used_at is the one reported (decision 40)', async () => {
    const hash = await newKeyId();
    const l = limits(10, 100);
    const first = await admitRequest(hash, l, at('2031-03-04T10:15:30.000Z'));
    expect(first).toMatchObject({ outcome: 'admitted', record: { last_used_at: null } });
    const second = await admitRequest(hash, l, at('2031-03-04T10:15:31.000Z'));
    expect(second).toMatchObject({ outcome: 'admitted', record: { last_used_at: '2031-03-04T10:15:30.000Z' } });
  });

  it('a request refused by a limit still stamps the key as used', async () => {
    const hash = await newKeyId();
    const l = limits(1, 100);
    await consumeRequest(hash, l, at('2031-03-04T10:15:30.000Z'));
    await refusal(consumeRequest(hash, l, at('2031-03-04T10:15:40.000Z')));
    expect(await storedCounts(hash)).toMatchObject({ rate_n: 1, last_used_at: '2031-03-04T10:15:40.000Z' });
  });
});

describe('through the middleware, with the default limits', () => {
  it('reads the documented defaults from configuration', () => {
    expect(config().limits).toEqual({ perHour: 1000, perMinute: 100, createsPerHour: 10 });
  });

  /** 110 concurrent requests with one fresh key; null when a clock minute boundary fell inside the burst. */
  async function burstOf110(): Promise<{ res: CallResult[]; keyId: string } | null> {
    const { key, record } = await createKey({ scopes: ['org:read'] });
    const minute = () => Math.floor(Date.now() / 60_000);
    const before = minute();
    const res = await Promise.all(Array.from({ length: 110 }, () => call('GET', '/environments', { key })));
    return minute() === before ? { res, keyId: record.id } : null;
  }

  it('lets 100 of 110 concurrent requests through and answers the other 10 with 429', async () => {
    // A burst straddling a clock minute legitimately gets more through; then run it once more.
    const run = (await burstOf110()) ?? (await burstOf110());
    if (!run) throw new Error('two bursts in a row straddled a clock minute');
    const { res, keyId } = run;
    const ok = res.filter((r) => r.status === 200);
    const refused = res.filter((r) => r.status === 429);
    expect([ok.length, refused.length]).toEqual([100, 10]);

    expect(ok.map((r) => Number(r.headers['x-ratelimit-remaining'])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 100 }, (_, i) => 900 + i),
    );
    for (const r of refused) {
      expect(r.body.error).toEqual({
        code: 'RATE_LIMIT_EXCEEDED',
        message: expect.stringMatching(/100 requests per minute/),
        request_id: r.headers['x-request-id'],
      });
      expect(r.headers['x-ratelimit-remaining']).toBe('0');
      expect(r.headers['x-ratelimit-limit']).toBe('1000');
      expect(r.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
      const retryAfter = Number(r.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(r.body.error.message).toContain(`Retry after ${retryAfter} seconds`);
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    }

    // Refused requests are logged with their status, like any request with a recognised key.
    const usage = await listUsage(keyId, 500);
    expect(usage).toHaveLength(110);
    expect(usage.filter((u) => u.status === 429)).toHaveLength(10);
  });
});
