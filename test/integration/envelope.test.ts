/**
 * The response envelope and the headers every response carries (decisions 1, 2, 3):
 * `data` / `error{code,message,request_id}`, X-Request-Id echo or a fresh id,
 * the JSON content type, and the rate-limit headers on responses to accepted keys.
 */
import { revokeKey } from '../../functions/adapters/dynamo/api-key-store.js';
import { call, createKey } from '../helpers/fixtures.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const FRESH_ID = /^req_[0-9a-f]{32}$/;
const nextClockHour = () => Math.floor(Date.now() / 3_600_000) * 3600 + 3600;

describe('envelope', () => {
  it('wraps a success in exactly {data}', async () => {
    const { key } = await createKey();
    const res = await call('GET', '/key', { key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
  });

  it.each([
    ['401', async () => call('GET', '/environments')],
    ['403', async () => call('GET', '/environments', { key: (await createKey({ scopes: ['operations:read'] })).key })],
    ['404 (route)', async () => call('GET', '/environments/env_other', { key: (await createKey()).key })],
    ['404 (path)', async () => call('GET', '/no/such/path')],
    ['405', async () => call('DELETE', '/key')],
    ['400', async () => call('GET', '/environments?per_page=500', { key: (await createKey()).key })],
  ])('wraps a %s in exactly {error:{code,message,request_id,...}} with no stack', async (_what, send) => {
    const res = await send();
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    const { code, message, request_id, ...rest } = res.body.error;
    expect(code).toMatch(/^[A-Z_]+$/);
    expect(typeof message).toBe('string');
    expect(message.length).toBeGreaterThan(0);
    expect(request_id).toBe(res.headers['x-request-id']);
    expect(Object.keys(rest).every((k) => k === 'details' || k === 'operation_id')).toBe(true);
    expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(ts|js):\d+/);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
  });

  it('lists validation problems as details [{field, issue}]', async () => {
    const { key } = await createKey();
    const res = await call('GET', '/environments?page=0&per_page=abc', { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'page', issue: expect.any(String) },
        { field: 'per_page', issue: expect.any(String) },
      ]),
    );
  });
});

describe('protective headers (decision 39)', () => {
  it('every answer carries nosniff, and every JSON answer Cache-Control: no-store', async () => {
    const { key } = await createKey({ scopes: ['deployments:read'] });
    const answers = await Promise.all([
      call('GET', '/key', { key }),
      call('GET', '/deployments?page=0', { key }),
      call('POST', '/deployments', { key, body: { app_type: 'airflow' } }),
      call('GET', '/key'),
      call('GET', '/nowhere'),
      call('PUT', '/deployments'),
      call('GET', '/openapi.json'),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 400, 403, 401, 404, 405, 200]);
    for (const a of answers) expect(a.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    // The docs page is HTML with its own caching rule, and still refuses sniffing.
    const page = await call('GET', '/docs');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['cache-control']).toBe('no-cache');
  });
});

describe('X-Request-Id', () => {
  it('echoes a safe caller id on success and on errors', async () => {
    const { key } = await createKey();
    for (const id of ['trace-123', 'a.b:c_d-E', 'x'.repeat(128)]) {
      const ok = await call('GET', '/key', { key, headers: { 'X-Request-Id': id } });
      expect(ok.headers['x-request-id']).toBe(id);
      const denied = await call('GET', '/key', { headers: { 'X-Request-Id': id } });
      expect(denied.headers['x-request-id']).toBe(id);
      expect(denied.body.error.request_id).toBe(id);
      const missing = await call('GET', '/nowhere', { headers: { 'x-request-id': id } });
      expect(missing.body.error.request_id).toBe(id);
    }
  });

  it.each([
    ['with spaces', 'my request id'],
    ['over 128 characters', 'x'.repeat(129)],
    ['with markup', '<script>'],
    ['with a newline', 'abc\ndef'],
    ['empty', ''],
  ])('replaces an unsafe id (%s) with a fresh one', async (_what, id) => {
    const res = await call('GET', '/environments', { headers: { 'X-Request-Id': id } });
    expect(res.headers['x-request-id']).toMatch(FRESH_ID);
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  });

  it('gives every request without one a distinct fresh id', async () => {
    const { key } = await createKey();
    const ids = await Promise.all([1, 2, 3, 4].map(() => call('GET', '/key', { key }).then((r) => r.headers['x-request-id'])));
    for (const id of ids) expect(id).toMatch(FRESH_ID);
    expect(new Set(ids).size).toBe(4);
  });
});

describe('rate-limit headers', () => {
  it('are on responses to accepted keys: hourly limit, remaining, next clock hour', async () => {
    const { key } = await createKey();
    const before = nextClockHour();
    const first = await call('GET', '/key', { key });
    const second = await call('GET', '/environments', { key });
    const after = nextClockHour();
    expect(first.headers['x-ratelimit-limit']).toBe('1000');
    expect(first.headers['x-ratelimit-remaining']).toBe('999');
    expect([String(before), String(after)]).toContain(first.headers['x-ratelimit-reset']);
    // Both in one clock hour (the usual case): one fewer left; across the hour: a fresh window.
    const sameHour = first.headers['x-ratelimit-reset'] === second.headers['x-ratelimit-reset'];
    expect(second.headers['x-ratelimit-remaining']).toBe(sameHour ? '998' : '999');
  });

  it('are on errors after the key was accepted (403, 400, 404 from a handler)', async () => {
    const narrow = await createKey({ scopes: ['operations:read'] });
    const wide = await createKey();
    for (const res of [
      await call('GET', '/environments', { key: narrow.key }),
      await call('GET', '/environments?page=x', { key: wide.key }),
      await call('GET', '/environments/env_nope', { key: wide.key }),
    ]) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers['x-ratelimit-limit']).toBe('1000');
      expect(res.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
      expect(res.headers['x-ratelimit-reset']).toMatch(/^\d{10}$/);
    }
  });

  it('are absent from 401 responses', async () => {
    const revoked = await createKey();
    await revokeKey(revoked.record, new Date());
    const expired = await createKey({ expiresAt: '2020-01-01T00:00:00.000Z' });
    for (const res of [
      await call('GET', '/key'),
      await call('GET', '/key', { key: 'svc_sk_live_nope' }),
      await call('GET', '/key', { key: revoked.key }),
      await call('GET', '/key', { key: expired.key }),
    ]) {
      expect(res.status).toBe(401);
      expect(Object.keys(res.headers).filter((h) => h.includes('ratelimit'))).toEqual([]);
    }
  });
});
