/**
 * The key usage log (decision 34): every request made with a
 * recognised key, whatever its outcome, records time, method, route template, status,
 * key id, organization and request id.
 */
import { revokeKey } from '../../functions/adapters/dynamo/api-key-store.js';
import { listUsage } from '../../functions/adapters/dynamo/usage-store.js';
import { call, createKey } from '../helpers/fixtures.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('usage log', () => {
  it('records each request with its route template, newest first', async () => {
    const { key, record } = await createKey({ scopes: ['org:read'] });
    const start = Date.now();
    const sent = [
      await call('GET', '/key', { key }),
      await call('GET', '/environments?page=2', { key }),
      await call('GET', '/environments/env_default', { key }),
      await call('GET', '/environments/env_missing', { key }),
      await call('GET', '/environments?per_page=0', { key }),
    ];
    const end = Date.now();
    expect(sent.map((r) => r.status)).toEqual([200, 200, 200, 404, 400]);
    const entries = await listUsage(record.id, 50);
    expect(entries.map((e) => e.request_id)).toEqual(sent.map((r) => r.headers['x-request-id']).reverse());
    expect(entries.map(({ method, route, status }) => ({ method, route, status })).reverse()).toEqual([
      { method: 'GET', route: '/api/v1/key', status: 200 },
      { method: 'GET', route: '/api/v1/environments', status: 200 },
      { method: 'GET', route: '/api/v1/environments/{environment_id}', status: 200 },
      { method: 'GET', route: '/api/v1/environments/{environment_id}', status: 404 },
      { method: 'GET', route: '/api/v1/environments', status: 400 },
    ]);
    // The path named, not only the template it matched (the query is not part of it).
    expect(entries.map((e) => e.path).reverse()).toEqual([
      '/api/v1/key',
      '/api/v1/environments',
      '/api/v1/environments/env_default',
      '/api/v1/environments/env_missing',
      '/api/v1/environments',
    ]);
    for (const e of entries) {
      expect(e.client_address).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
      expect(e.key_id).toBe(record.id);
      expect(e.org_id).toBe(record.org_id);
      expect(e.at).toMatch(ISO_MS);
      expect(Date.parse(e.at)).toBeGreaterThanOrEqual(start);
      expect(Date.parse(e.at)).toBeLessThanOrEqual(end);
      // The duration is kept where the entry is written or corrected after the answer (decision 145).
      const keys = ['at', 'client_address', 'key_id', 'method', 'org_id', 'path', 'request_id', 'route', 'status'];
      expect(Object.keys(e).sort()).toEqual([...keys, ...(e.status === 200 ? [] : ['duration_ms'])].sort());
    }
  });

  it('records refusals of a recognised key: wrong scope, revoked, expired', async () => {
    const narrow = await createKey({ scopes: ['deployments:read'] });
    const r403 = await call('GET', '/environments', { key: narrow.key });
    expect(r403.status).toBe(403);

    const revoked = await createKey();
    await revokeKey(revoked.record, new Date());
    const r401 = await call('GET', '/key', { key: revoked.key, headers: { 'X-Request-Id': 'revoked-call-1' } });
    expect(r401.body.error.code).toBe('API_KEY_REVOKED');

    const expired = await createKey({ expiresAt: '2021-06-01T00:00:00.000Z' });
    const rExp = await call('GET', '/environments', { key: expired.key });
    expect(rExp.body.error.code).toBe('API_KEY_EXPIRED');

    expect(await listUsage(narrow.record.id, 10)).toEqual([
      expect.objectContaining({
        route: '/api/v1/environments',
        status: 403,
        org_id: narrow.record.org_id,
        request_id: r403.headers['x-request-id'],
      }),
    ]);
    expect(await listUsage(revoked.record.id, 10)).toEqual([
      expect.objectContaining({
        method: 'GET',
        route: '/api/v1/key',
        status: 401,
        key_id: revoked.record.id,
        org_id: revoked.record.org_id,
        request_id: 'revoked-call-1',
      }),
    ]);
    expect(await listUsage(expired.record.id, 10)).toEqual([expect.objectContaining({ status: 401, key_id: expired.record.id })]);
  });

  it('records nothing for a key that was not recognised', async () => {
    const { key, record } = await createKey();
    const i = key.length - 10;
    const mistyped = key.slice(0, i) + (key[i] === '0' ? '1' : '0') + key.slice(i + 1);
    expect((await call('GET', '/key', { key: mistyped })).body.error.code).toBe('INVALID_API_KEY');
    expect(await listUsage(record.id, 10)).toEqual([]);
  });

  it('keeps concurrent requests apart and honours the limit', async () => {
    const { key, record } = await createKey();
    const res = await Promise.all(Array.from({ length: 12 }, () => call('GET', '/key', { key })));
    const all = await listUsage(record.id, 100);
    expect(all).toHaveLength(12);
    expect(new Set(all.map((e) => e.request_id))).toEqual(new Set(res.map((r) => r.headers['x-request-id'])));
    expect(await listUsage(record.id, 5)).toEqual(all.slice(0, 5));
  });
});
