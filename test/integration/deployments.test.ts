import { DEPLOYMENT_STATUSES } from '../../contract/vocabulary.js';
import { createDeployment, deployment, operation, operationReaches, readyDeployment } from '../helpers/api.js';
import { call, createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OP_ID = /^op_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /deployments', () => {
  it('answers 202 with ids, links, Location and Retry-After, and the records exist', async () => {
    const { key } = await createKey();
    const res = await createDeployment(key, { app_type: 'superset', name: 'bi-prod' });
    expect(res.status).toBe(202);
    const { deployment_id, operation_id, links } = res.body.data;
    expect(deployment_id).toMatch(UUID);
    expect(operation_id).toMatch(OP_ID);
    expect(links).toEqual({ deployment: `/api/v1/deployments/${deployment_id}`, operation: `/api/v1/operations/${operation_id}` });
    expect(res.headers.location).toBe(`/api/v1/operations/${operation_id}`);
    expect(res.headers['retry-after']).toBe('2');
    const d = await deployment(key, deployment_id);
    expect(d).toMatchObject({ id: deployment_id, name: 'bi-prod', app_type: 'superset', environment_id: 'env_default' });
    expect(d.created_at).toMatch(ISO_MS);
    expect(d.links).toEqual({ self: `/api/v1/deployments/${deployment_id}`, operation: `/api/v1/operations/${operation_id}` });
    const op = await operation(key, operation_id);
    expect(op).toMatchObject({ id: operation_id, type: 'deployment.create', resource: { type: 'deployment', id: deployment_id } });
    expect(op.requested_at).toMatch(ISO_MS);
  });

  it('generates <app_type>-<6 hex> when the name is omitted', async () => {
    const { key } = await createKey();
    const res = await createDeployment(key, { app_type: 'airflow' });
    expect((await deployment(key, res.body.data.deployment_id)).name).toMatch(/^airflow-[0-9a-f]{6}$/);
  });

  it.each([
    [{ app_type: 'jupyter' }, 'app_type'],
    [{}, 'app_type'],
    [{ app_type: 'airflow', extra: 1 }, 'extra'],
    [{ app_type: 'airflow', name: '-leading-dash' }, 'name'],
    [{ app_type: 'airflow', name: 'a'.repeat(65) }, 'name'],
    [{ app_type: 'airflow', name: 'has space' }, 'name'],
    [{ app_type: 'airflow', environment_id: 'env_other' }, 'environment_id'],
    [{ app_type: 42 }, 'app_type'],
  ])('refuses %j with 400 INVALID_REQUEST naming %s, creating nothing', async (body, field) => {
    const { key } = await createKey();
    const res = await createDeployment(key, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    const list = await call('GET', '/deployments', { key });
    expect(list.body.data.pagination.total).toBe(0);
  });

  it('accepts a 64-character name and names with dots, dashes and underscores', async () => {
    const { key } = await createKey();
    expect((await createDeployment(key, { app_type: 'airflow', name: 'a'.repeat(64) })).status).toBe(202);
    expect((await createDeployment(key, { app_type: 'airflow', name: '9a.b-c_d' })).status).toBe(202);
  });

  it.each([
    ['malformed JSON', '{"app_type":', 'application/json', 400, 'INVALID_REQUEST'],
    ['a JSON array', '[]', 'application/json', 400, 'INVALID_REQUEST'],
    ['null', 'null', 'application/json', 400, 'INVALID_REQUEST'],
    ['text/plain', '{"app_type":"airflow"}', 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['no Content-Type', '{"app_type":"airflow"}', undefined, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['charset parameter', '{"app_type":"airflow"}', 'application/json; charset=utf-8', 202, undefined],
  ])('%s', async (_, rawBody, contentType, status, code) => {
    const { key } = await createKey();
    const res = await call('POST', '/deployments', { key, rawBody, headers: contentType ? { 'Content-Type': contentType } : {} });
    expect(res.status).toBe(status);
    if (code) expect(res.body.error.code).toBe(code);
  });

  it('refuses a body over 64 KiB with 413 and accepts one of exactly 65,536 bytes as far as size goes', async () => {
    const { key } = await createKey();
    const pad = (n: number) => {
      const base = '{"app_type":"airflow","name":"x","pad":""}';
      return base.replace('"pad":""', `"pad":"${'p'.repeat(n - base.length)}"`);
    };
    const over = await call('POST', '/deployments', { key, rawBody: pad(65_537), headers: { 'Content-Type': 'application/json' } });
    expect(over.status).toBe(413);
    expect(over.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const exact = await call('POST', '/deployments', { key, rawBody: pad(65_536), headers: { 'Content-Type': 'application/json' } });
    expect(exact.status).toBe(400); // size is fine; the unknown field "pad" is not
  });

  it('keeps names unique among deployments not destroyed (409), and frees a destroyed one', async () => {
    const { key } = await createKey();
    const first = await readyDeployment(key, { app_type: 'airflow', name: 'etl' });
    const clash = await createDeployment(key, { app_type: 'superset', name: 'etl' });
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe('DEPLOYMENT_NAME_TAKEN');
    const del = await call('DELETE', `/deployments/${first.id}`, { key });
    await operationReaches(key, del.body.data.operation_id, ['succeeded']);
    expect((await createDeployment(key, { app_type: 'airflow', name: 'etl' })).status).toBe(202);
  });

  it('compares names exactly: "ETL" and "etl" are different names', async () => {
    const { key } = await createKey();
    expect((await createDeployment(key, { app_type: 'airflow', name: 'ETL' })).status).toBe(202);
    expect((await createDeployment(key, { app_type: 'airflow', name: 'etl' })).status).toBe(202);
  });

  it('lets two organizations use the same name', async () => {
    const a = await createKey();
    const b = await createKey();
    expect((await createDeployment(a.key, { app_type: 'airflow', name: 'shared' })).status).toBe(202);
    expect((await createDeployment(b.key, { app_type: 'airflow', name: 'shared' })).status).toBe(202);
  });
});

describe('Idempotency-Key (decision 16)', () => {
  it('replays the first response without creating anything', async () => {
    const { key } = await createKey();
    const headers = { 'Idempotency-Key': 'create-1' };
    const first = await createDeployment(key, { app_type: 'airflow', name: 'idem' }, headers);
    const again = await createDeployment(key, { name: 'idem', app_type: 'airflow' }, headers);
    expect(again.status).toBe(202);
    expect(again.body.data).toEqual(first.body.data);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect((await call('GET', '/deployments', { key })).body.data.pagination.total).toBe(1);
  });

  it('refuses the same key with a different body (409 IDEMPOTENCY_KEY_REUSED)', async () => {
    const { key } = await createKey();
    await createDeployment(key, { app_type: 'airflow' }, { 'Idempotency-Key': 'k' });
    const res = await createDeployment(key, { app_type: 'superset' }, { 'Idempotency-Key': 'k' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('creates exactly one deployment for concurrent requests with one key', async () => {
    const { key } = await createKey();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => createDeployment(key, { app_type: 'airflow' }, { 'Idempotency-Key': 'burst' })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(202));
    expect(new Set(results.map((r) => r.body.data.deployment_id)).size).toBe(1);
    expect((await call('GET', '/deployments', { key })).body.data.pagination.total).toBe(1);
  });

  it('scopes keys to the organization', async () => {
    const a = await createKey();
    const b = await createKey();
    const ra = await createDeployment(a.key, { app_type: 'airflow' }, { 'Idempotency-Key': 'same' });
    const rb = await createDeployment(b.key, { app_type: 'airflow' }, { 'Idempotency-Key': 'same' });
    expect(rb.body.data.deployment_id).not.toBe(ra.body.data.deployment_id);
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
  });

  it('accepts 255 characters and refuses 256 (400) or an empty key', async () => {
    const { key } = await createKey();
    expect((await createDeployment(key, { app_type: 'airflow' }, { 'Idempotency-Key': 'k'.repeat(255) })).status).toBe(202);
    const long = await createDeployment(key, { app_type: 'airflow' }, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(long.status).toBe(400);
    expect(long.body.error.code).toBe('INVALID_REQUEST');
    expect((await createDeployment(key, { app_type: 'airflow' }, { 'Idempotency-Key': '' })).status).toBe(400);
  });
});

describe('GET /deployments/{id}', () => {
  it("is 404 DEPLOYMENT_NOT_FOUND for unknown, malformed and other organizations' ids", async () => {
    const a = await createKey();
    const b = await createKey();
    const created = await createDeployment(a.key);
    for (const [key, id] of [
      [a.key, '00000000-0000-4000-8000-000000000000'],
      [a.key, 'not-a-uuid'],
      [b.key, created.body.data.deployment_id],
    ] as const) {
      const res = await call('GET', `/deployments/${id}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('DEPLOYMENT_NOT_FOUND');
    }
  });

  it('shows url only while ready', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    expect(d.status).toBe('ready');
    expect(d.url).toBe(`https://superset.${d.id}.apps.test.example`);
    const del = await call('DELETE', `/deployments/${d.id}`, { key });
    expect((await deployment(key, d.id)).url).toBeUndefined();
    await operationReaches(key, del.body.data.operation_id, ['succeeded']);
    const gone = await deployment(key, d.id);
    expect(gone.status).toBe('destroyed');
    expect(gone.url).toBeUndefined();
  });
});

describe('GET /deployments', () => {
  it('lists newest first with pagination, links and a status filter', async () => {
    const { key } = await createKey();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createDeployment(key, { app_type: 'airflow', name: `d${i}` })).body.data.deployment_id);
    const page1 = await call('GET', '/deployments?per_page=2', { key });
    expect(page1.body.data.items.map((d: { id: string }) => d.id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.data.pagination).toEqual({ page: 1, per_page: 2, total: 5, pages: 3 });
    expect(page1.body.data.links).toEqual({
      self: '/api/v1/deployments?page=1&per_page=2',
      first: '/api/v1/deployments?page=1&per_page=2',
      last: '/api/v1/deployments?page=3&per_page=2',
      next: '/api/v1/deployments?page=2&per_page=2',
      prev: null,
    });
    const page3 = await call('GET', '/deployments?per_page=2&page=3', { key });
    expect(page3.body.data.items.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect(page3.body.data.links.next).toBeNull();
    const past = await call('GET', '/deployments?per_page=2&page=9', { key });
    expect(past.status).toBe(200);
    expect(past.body.data.items).toEqual([]);
    expect(past.body.data.pagination).toEqual({ page: 9, per_page: 2, total: 5, pages: 3 });
    const created = await Promise.all(ids.map((id) => call('GET', `/deployments/${id}`, { key })));
    const times = created.map((r) => r.body.data.created_at);
    expect([...times].sort()).toEqual(times);

    await eventually(async () => (await call('GET', '/deployments?status=ready', { key })).body.data.pagination.total === 5, 'all ready');
    const ready = await call('GET', '/deployments?status=ready&per_page=2&page=2', { key });
    expect(ready.body.data.items.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(ready.body.data.links.self).toBe('/api/v1/deployments?status=ready&page=2&per_page=2');
    const none = await call('GET', '/deployments?status=destroyed', { key });
    expect(none.body.data.pagination).toEqual({ page: 1, per_page: 50, total: 0, pages: 0 });
  });

  it.each(['page=0', 'page=-1', 'page=1.5', 'page=abc', 'per_page=0', 'per_page=101', 'per_page=x', 'status=running'])(
    'refuses %s with 400 and details',
    async (q) => {
      const { key } = await createKey();
      const res = await call('GET', `/deployments?${q}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details[0].field).toBe(q.split('=')[0]);
    },
  );

  it('ignores unknown query parameters and accepts per_page=100', async () => {
    const { key } = await createKey();
    const res = await call('GET', '/deployments?per_page=100&color=blue', { key });
    expect(res.status).toBe(200);
    expect(res.body.data.pagination.per_page).toBe(100);
  });

  it("shows only the caller organization's deployments", async () => {
    const a = await createKey();
    const b = await createKey();
    await createDeployment(a.key);
    expect((await call('GET', '/deployments', { key: b.key })).body.data.items).toEqual([]);
  });

  it('accepts every documented status as a filter', async () => {
    const { key } = await createKey();
    for (const status of DEPLOYMENT_STATUSES) expect((await call('GET', `/deployments?status=${status}`, { key })).status).toBe(200);
  });
});
