/**
 * Authentication and authorization through the real middleware and DynamoDB Local
 * (decisions 28, 29, 30, 35): each failure code, the order of the checks,
 * the checksum that refuses a mistyped key without a database read, scopes, isolation
 * between organizations, and keys stored only as hashes.
 */
import crypto from 'node:crypto';
import { findKeyById, revokeKey } from '../../functions/adapters/dynamo/api-key-store.js';
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { generateKey, hashKey, KEY_PREFIX, keyHint } from '../../functions/core/api-keys.js';
import { runKeysCommand } from '../../local/keys-cli.js';
import { type CallResult, call, createKey, newOrgId, signingSecret, storeKey } from '../helpers/fixtures.js';
import { scanTable } from '../helpers/table-scan.js';

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function expectError(res: CallResult, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: { code, message: expect.any(String), request_id: res.headers['x-request-id'] } });
}

const expectNoRateHeaders = (res: CallResult) => {
  for (const h of RATE_HEADERS) expect(res.headers[h]).toBeUndefined();
};
const expectRateHeaders = (res: CallResult) => {
  for (const h of RATE_HEADERS) expect(res.headers[h]).toMatch(/^\d+$/);
};

/** The same key with one character of its random part changed, so the checksum no longer matches. */
function mistype(key: string): string {
  const i = KEY_PREFIX.length + 5;
  const swapped = key[i] === 'a' ? 'b' : 'a';
  return key.slice(0, i) + swapped + key.slice(i + 1);
}

afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

describe('MISSING_API_KEY', () => {
  it('is 401 when no X-API-Key is sent', async () => {
    const res = await call('GET', '/environments');
    expectError(res, 401, 'MISSING_API_KEY');
    expect(res.body.error.message).toContain('X-API-Key');
    expectNoRateHeaders(res);
  });

  it('is 401 for an empty X-API-Key', async () => {
    expectError(await call('GET', '/key', { headers: { 'X-API-Key': '' } }), 401, 'MISSING_API_KEY');
  });

  it('is 401 with a message pointing to X-API-Key when only a Bearer token is sent', async () => {
    const res = await call('GET', '/environments', { headers: { Authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' } });
    expectError(res, 401, 'MISSING_API_KEY');
    expect(res.body.error.message).toMatch(/bearer/i);
    expect(res.body.error.message).toContain('X-API-Key');
    expectNoRateHeaders(res);
  });

  it('ignores a Bearer token sent next to a valid key (only X-API-Key authenticates)', async () => {
    const { key } = await createKey();
    const res = await call('GET', '/key', { key, headers: { Authorization: 'Bearer not-a-jwt' } });
    expect(res.status).toBe(200);
  });

  it('reads the header case-insensitively, as API Gateway passes the client casing', async () => {
    const { key, record } = await createKey();
    const res = await call('GET', '/key', { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(record.id);
  });
});

describe('INVALID_API_KEY', () => {
  it('is 401 for a well-formed key that was never stored', async () => {
    const { key } = generateKey({ orgId: newOrgId(), name: 'never saved', now: new Date() }, signingSecret());
    const res = await call('GET', '/environments', { key });
    expectError(res, 401, 'INVALID_API_KEY');
    expectNoRateHeaders(res);
  });

  it.each([
    ['a random string', 'hello'],
    ['a wrong prefix', 'svc_sk_test_0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM'],
    ['a truncated key', 'svc_sk_live_abc'],
    ['a key with surrounding text', 'key=svc_sk_live_x'],
  ])('is 401 for %s', async (_what, key) => {
    expectError(await call('GET', '/key', { key }), 401, 'INVALID_API_KEY');
  });

  it('refuses a key whose checksum does not match without any DynamoDB call', async () => {
    const { key } = await createKey();
    const send = jest.spyOn(ddb, 'send');
    const res = await call('GET', '/environments', { key: mistype(key) });
    expectError(res, 401, 'INVALID_API_KEY');
    expect(send).not.toHaveBeenCalled();
  });

  it('refuses a forged key (its HMAC made under another secret) without any DynamoDB call, even when a row with its hash exists', async () => {
    const { key, record } = generateKey({ orgId: newOrgId(), name: 'forged', now: new Date() }, Buffer.alloc(32, 1));
    await storeKey(record);
    const send = jest.spyOn(ddb, 'send');
    expectError(await call('GET', '/key', { key }), 401, 'INVALID_API_KEY');
    expect(send).not.toHaveBeenCalled();
  });

  it('still admits a key of the earlier form (CRC-checked), issued before keys were signed', async () => {
    const { key, record } = await createKey({ legacy: true });
    expect(key).toMatch(/^svc_sk_live_[0-9A-Za-z]{49}$/);
    const res = await call('GET', '/key', { key });
    expect(res.status).toBe(200);
    expect(res.body.data.id).toBe(record.id);
  });

  it('the spy above does see the reads a valid key makes (so its silence means something)', async () => {
    const { key } = await createKey();
    const send = jest.spyOn(ddb, 'send');
    expect((await call('GET', '/key', { key })).status).toBe(200);
    expect(send).toHaveBeenCalled();
  });

  it('refuses a bad-checksum key even when a row with its hash exists in the table', async () => {
    const { key, record } = generateKey({ orgId: newOrgId(), name: 'planted', now: new Date() }, signingSecret());
    const bad = mistype(key);
    // Plant a stored key whose hash is the mistyped key's: only the checksum can refuse it.
    await storeKey({ ...record, hash: hashKey(bad), hint: keyHint(bad) });
    expectError(await call('GET', '/key', { key: bad }), 401, 'INVALID_API_KEY');
  });
});

describe('comparing keys', () => {
  it('finds the key by its hash, then confirms the stored hash with a constant-time comparison', async () => {
    const { key } = await createKey();
    const compare = jest.spyOn(crypto, 'timingSafeEqual');
    expect((await call('GET', '/key', { key })).status).toBe(200);
    const digest = Buffer.from(hashKey(key), 'hex');
    expect(compare.mock.calls).toContainEqual([digest, digest]);
  });
});

describe('API_KEY_REVOKED and API_KEY_EXPIRED', () => {
  it('is 401 API_KEY_REVOKED for a revoked key, with no rate-limit headers', async () => {
    const { key, record } = await createKey();
    expect((await call('GET', '/key', { key })).status).toBe(200);
    await revokeKey(record, new Date());
    const res = await call('GET', '/key', { key });
    expectError(res, 401, 'API_KEY_REVOKED');
    expectNoRateHeaders(res);
  });

  it('says revoked, not expired, for a key that is both (order of checks)', async () => {
    const { key, record } = await createKey({ expiresAt: '2020-01-01T00:00:00.000Z' });
    await revokeKey(record, new Date());
    expectError(await call('GET', '/key', { key }), 401, 'API_KEY_REVOKED');
  });

  it('checks revoked and expired before the scope', async () => {
    const revoked = await createKey({ scopes: ['deployments:read'] });
    await revokeKey(revoked.record, new Date());
    expectError(await call('GET', '/environments', { key: revoked.key }), 401, 'API_KEY_REVOKED');
    const expired = await createKey({ scopes: ['deployments:read'], expiresAt: '2020-01-01T00:00:00.000Z' });
    expectError(await call('GET', '/environments', { key: expired.key }), 401, 'API_KEY_EXPIRED');
  });

  it('a key is expired from its expiry instant on, and usable one second before it', async () => {
    // Only Date is faked: timers and I/O run for real, `new Date()` in the handler is `now`.
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const atNow = await createKey({ expiresAt: now.toISOString() });
    const inOneSecond = await createKey({ expiresAt: new Date(now.getTime() + 1000).toISOString() });
    jest.useFakeTimers({
      now,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    const expired = await call('GET', '/key', { key: atNow.key });
    expectError(expired, 401, 'API_KEY_EXPIRED');
    expect(expired.body.error.message).toContain(now.toISOString());
    expectNoRateHeaders(expired);
    const ok = await call('GET', '/key', { key: inOneSecond.key });
    expect(ok.status).toBe(200);
    expect(ok.body.data.expires_at).toBe(new Date(now.getTime() + 1000).toISOString());

    jest.setSystemTime(now.getTime() + 1000);
    expectError(await call('GET', '/key', { key: inOneSecond.key }), 401, 'API_KEY_EXPIRED');
  });

  it('revocation is permanent: revoking again keeps the first time and the key stays refused', async () => {
    const { key, record } = await createKey();
    const first = await revokeKey(record, new Date('2026-01-01T00:00:00.000Z'));
    const second = await revokeKey(record, new Date('2026-06-01T00:00:00.000Z'));
    expect(second.revoked_at).toBe(first.revoked_at);
    expect((await findKeyById(record.id))?.revoked_at).toBe('2026-01-01T00:00:00.000Z');
    expectError(await call('GET', '/key', { key }), 401, 'API_KEY_REVOKED');
  });
});

describe('scopes', () => {
  it('is 403 INSUFFICIENT_SCOPE naming org:read for /environments, after the key was accepted', async () => {
    const { key } = await createKey({ scopes: ['deployments:read', 'deployments:write', 'deployments:delete', 'operations:read'] });
    const res = await call('GET', '/environments', { key });
    expectError(res, 403, 'INSUFFICIENT_SCOPE');
    expect(res.body.error.message).toContain('Required: org:read');
    expectRateHeaders(res);
    const one = await call('GET', '/environments/env_default', { key });
    expectError(one, 403, 'INSUFFICIENT_SCOPE');
    expect(one.body.error.message).toContain('Required: org:read');
  });

  it('lets a key holding only org:read list environments', async () => {
    const { key } = await createKey({ scopes: ['org:read'] });
    expect((await call('GET', '/environments', { key })).status).toBe(200);
  });

  it('GET /key needs no particular scope', async () => {
    for (const scope of ['deployments:read', 'operations:read', 'deployments:delete'] as const) {
      const { key, record } = await createKey({ scopes: [scope] });
      const res = await call('GET', '/key', { key });
      expect(res.status).toBe(200);
      expect(res.body.data.scopes).toEqual([scope]);
      expect(res.body.data.id).toBe(record.id);
    }
  });

  it('a key made without scopes holds all five', async () => {
    const { key } = await createKey();
    const res = await call('GET', '/key', { key });
    expect(res.body.data.scopes).toEqual(['deployments:read', 'deployments:write', 'deployments:delete', 'operations:read', 'org:read']);
  });
});

describe('GET /key and isolation between organizations', () => {
  it('describes the calling key, and each organization sees only itself', async () => {
    const a = await createKey({ name: 'alpha ci', expiresAt: '2099-01-01T00:00:00.000Z' });
    const b = await createKey({ name: 'beta ci' });
    const ra = await call('GET', '/key', { key: a.key });
    const rb = await call('GET', '/key', { key: b.key });
    expect(ra.body.data).toEqual({
      id: a.record.id,
      name: 'alpha ci',
      org_id: a.record.org_id,
      scopes: a.record.scopes,
      expires_at: '2099-01-01T00:00:00.000Z',
      created_at: a.record.created_at,
      hint: `svc_sk_live_…${a.key.slice(-4)}`,
      last_used_at: null,
    });
    expect(rb.body.data).toMatchObject({ id: b.record.id, org_id: b.record.org_id, expires_at: null });
    expect(a.record.org_id).not.toBe(b.record.org_id);
  });

  it('says when the key was used before this request (decision 40), whatever that request was', async () => {
    const { key, record } = await createKey({ scopes: ['deployments:read'] });
    const first = await call('GET', '/key', { key });
    expect(first.body.data.last_used_at).toBeNull();
    const before = Date.now();
    expect((await call('GET', '/environments', { key })).status).toBe(403);
    const after = Date.now();
    const second = (await call('GET', '/key', { key })).body.data.last_used_at;
    expect(Date.parse(second)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(second)).toBeLessThanOrEqual(after);
    const third = (await call('GET', '/key', { key })).body.data.last_used_at;
    expect(Date.parse(third)).toBeGreaterThan(Date.parse(second));
    // The operator's list shows it too.
    const out: string[] = [];
    await runKeysCommand(['list', '--org', record.org_id, '--json'], { out: (l) => out.push(l), fail: (l) => out.push(l) });
    expect(Date.parse(JSON.parse(out[0]!)[0].last_used_at)).toBeGreaterThanOrEqual(Date.parse(third));
  });

  it('lists each organization its own environments', async () => {
    const a = await createKey({ orgId: newOrgId() });
    const b = await createKey({ orgId: newOrgId() });
    const la = await call('GET', '/environments', { key: a.key });
    const lb = await call('GET', '/environments', { key: b.key });
    expect(la.body.data.items).toEqual([expect.objectContaining({ id: 'env_default', created_at: a.record.created_at })]);
    expect(lb.body.data.items).toEqual([expect.objectContaining({ id: 'env_default', created_at: b.record.created_at })]);
  });

  it('a second key of the same organization sees the same organization', async () => {
    const orgId = newOrgId();
    const first = await createKey({ orgId });
    const second = await createKey({ orgId, scopes: ['org:read'] });
    const r1 = await call('GET', '/environments', { key: first.key });
    const r2 = await call('GET', '/environments', { key: second.key });
    expect(r2.body.data.items).toEqual(r1.body.data.items);
    expect((await call('GET', '/key', { key: second.key })).body.data.org_id).toBe(orgId);
  });
});

describe('storage and logs hold no secret', () => {
  function strings(value: unknown, out: string[] = []): string[] {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const v of value) strings(v, out);
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        out.push(k);
        strings(v, out);
      }
    }
    return out;
  }

  it('no attribute of any item in the table contains a key or its token, only its hash', async () => {
    const made = await createKey();
    const out: string[] = [];
    await runKeysCommand(['create', '--org', newOrgId(), '--name', 'cli', '--json'], { out: (l) => out.push(l), fail: (l) => out.push(l) });
    const viaCli = JSON.parse(out[0]!) as { key: string; id: string };
    for (const key of [made.key, viaCli.key]) {
      expect((await call('GET', '/key', { key })).status).toBe(200);
      expect((await call('GET', '/environments', { key })).status).toBe(200);
      expect((await call('GET', '/nope', { key })).status).toBe(404);
    }
    const all = strings(await scanTable());
    for (const key of [made.key, viaCli.key]) {
      const token = key.slice(KEY_PREFIX.length);
      const random = token.slice(0, 43);
      expect(all.filter((s) => s.includes(token) || s.includes(random))).toEqual([]);
      expect(all).toContain(`KEY#${hashKey(key)}`);
    }
  });

  it('log lines never contain a key, its hash or an Authorization value, whatever the outcome', async () => {
    const { key, record } = await createKey({ scopes: ['deployments:read'] });
    const bearer = 'Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXRva2Vu.c2lnbmF0dXJl';
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    // The logger takes its level when its module loads: load a fresh copy of the stack that logs.
    const previous = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'INFO';
    jest.resetModules();
    const { invokeGateway } = await import('../../local/gateway.js');
    const fresh = await import('../../functions/adapters/dynamo/client.js');
    // The fresh modules hold ports of their own: plug the local stand-ins into them, as after-env.ts does.
    const standIns = await import('../../local/stand-ins.js');
    standIns.useStandIns(standIns.localStandIns(process.env.WEBHOOK_SECRET_KEY!));
    const send = (method: string, path: string, headers: Record<string, string>, body = '') =>
      invokeGateway({ method, url: `/api/v1${path}`, rawHeaders: Object.entries(headers).flat(), body: Buffer.from(body) });
    jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    try {
      await send('GET', '/key', { 'X-API-Key': key, Authorization: bearer });
      await send('GET', '/environments', { 'X-API-Key': key });
      await send('GET', '/key', { 'X-API-Key': mistype(key) });
      await send('GET', '/key', { Authorization: bearer });
      await send('POST', '/deployments', { 'X-API-Key': key, 'Content-Type': 'application/json' }, '{"app_type":"airflow"}');
      await send('GET', '/nowhere', { 'X-API-Key': key });
      await revokeKey(record, new Date());
      await send('GET', '/key', { 'X-API-Key': key });
    } finally {
      jest.restoreAllMocks();
      process.env.LOG_LEVEL = previous;
      fresh.ddb.destroy();
    }
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // One access line per request, each with the request's keys; the key's id and organization once it was recognised
    // (not for the mistyped key, the keyless request, or the unknown path, where no key is read).
    const access = entries.filter((e) => e.message === 'request');
    expect(access).toHaveLength(7);
    expect(access.filter((e) => e.key_id === record.id && e.org_id === record.org_id)).toHaveLength(4);
    for (const e of access)
      expect(e).toEqual(expect.objectContaining({ request_id: expect.any(String), route: expect.any(String), status: expect.any(Number) }));
    const secrets = [
      key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 43),
      mistype(key).slice(KEY_PREFIX.length, KEY_PREFIX.length + 43),
      hashKey(key),
      'c2VjcmV0LXRva2Vu',
    ];
    expect(lines.filter((l) => secrets.some((s) => l.includes(s)))).toEqual([]);
  });
});
