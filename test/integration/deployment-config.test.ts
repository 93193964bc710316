/** Decisions 41-43: configuration, PATCH with dry run and If-Match, revisions and rollback, against DynamoDB Local and the real ASL. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import { WITHHELD } from '../../functions/core/operation-logs.js';
import type { PlatformConfig } from '../../functions/core/platform.js';
import { inject } from '../../functions/lib/injectable.js';
import { createDeployment, deployment, operation, operationReaches, readyDeployment } from '../helpers/api.js';
import { type CallResult, call, createKey } from '../helpers/fixtures.js';
import { ENV_SECRET_PREFIX } from '../helpers/log-scan.js';

/** Env secret values in these tests start with this, so the log scan finds any that reaches a log line. */
const SECRET = ENV_SECRET_PREFIX;

const patch = (key: string, id: string, body: unknown, headers: Record<string, string> = {}, query = '') =>
  call('PATCH', `/deployments/${id}${query}`, { key, body, headers: { 'Content-Type': 'application/merge-patch+json', ...headers } });

const fields = (res: CallResult) => (res.body.error?.details ?? []).map((d: { field: string }) => d.field);

async function updated(key: string, res: CallResult) {
  expect(res.status).toBe(202);
  return operationReaches(key, res.body.data.operation_id, ['succeeded', 'failed', 'canceled']);
}

describe('configuration at creation (decision 41)', () => {
  it('defaults to the newest supported version, small and no env; revision 1, updated_at = created_at; ETag', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow' });
    expect(d.config).toEqual({ app_version: '3.1.3', size: 'small', env: {}, hibernation: null });
    expect(d.revision).toBe(1);
    expect(d.updated_at).toBe(d.created_at);
    const got = await call('GET', `/deployments/${d.id}`, { key });
    expect(got.headers.etag).toBe('"1"');
    const superset = await readyDeployment(key, { app_type: 'superset' });
    expect(superset.config.app_version).toBe('5.0.0');
  });

  it('takes any config fields, shows plain entries as they are and secrets as {"secret": true}', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, {
      app_type: 'airflow',
      config: { app_version: '2.10.5', env: { LOG_LEVEL: { value: 'info' }, DB_PASSWORD: { value: `${SECRET}create`, secret: true } } },
    });
    expect(d.config).toEqual({
      app_version: '2.10.5',
      size: 'small',
      env: { LOG_LEVEL: { value: 'info', secret: false }, DB_PASSWORD: { secret: true } },
      hibernation: null,
    });
    expect(JSON.stringify(d)).not.toContain(`${SECRET}create`);
  });

  it.each([
    [{ size: 'huge' }, 'config.size'],
    [{ app_version: '9.9.9' }, 'config.app_version'],
    [{ env: { '1BAD': { value: 'x' } } }, 'config.env.1BAD'],
    [{ env: { OK: { value: 'x'.repeat(4097) } } }, 'config.env.OK.value'],
    [{ env: { OK: { secret: true } } }, 'config.env.OK.value'],
    [{ env: { OK: { value: 'x', extra: 1 } } }, 'config.env.OK.extra'],
    [{ colour: 'blue' }, 'config.colour'],
    [{ env: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`V${i}`, { value: 'x' }])) }, 'config.env'],
  ])('refuses config %j with 400 naming %s', async (config, field) => {
    const { key } = await createKey();
    const res = await createDeployment(key, { app_type: 'airflow', config });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(fields(res)).toContain(field);
  });
});

describe('PATCH /deployments/{id} (decision 42)', () => {
  it('applies a merge patch through a deployment.update operation: revision + 1, result, events with previous.config', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', config: { app_version: '2.11.0', env: { A: { value: '1' } } } });
    const res = await patch(key, d.id, { config: { size: 'large', env: { A: null, B: { value: '2' } } } });
    expect(res.status).toBe(202);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/api/v1/operations/${res.body.data.operation_id}`);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.body.data).toEqual({
      deployment_id: d.id,
      operation_id: res.body.data.operation_id,
      links: { deployment: `/api/v1/deployments/${d.id}`, operation: `/api/v1/operations/${res.body.data.operation_id}` },
    });
    const queued = await operation(key, res.body.data.operation_id);
    expect(queued.type).toBe('deployment.update');
    expect(queued.changes).toEqual([
      { field: 'config.env.A', from: { value: '1', secret: false }, to: null },
      { field: 'config.env.B', from: null, to: { value: '2', secret: false } },
      { field: 'config.size', from: 'small', to: 'large' },
    ]);
    const op = await updated(key, res);
    expect(op).toMatchObject({ status: 'succeeded', progress: { phase: 'updated' }, result: { revision: 2 } });
    const after = await call('GET', `/deployments/${d.id}`, { key });
    expect(after.headers.etag).toBe('"2"');
    expect(after.body.data).toMatchObject({
      status: 'ready',
      revision: 2,
      config: { app_version: '2.11.0', size: 'large', env: { B: { value: '2', secret: false } } },
    });
    expect(after.body.data.updated_at).toBe(op.ended_at);
    const events = await call('GET', `/events?resource_id=${d.id}&type=deployment.updated`, { key });
    const configEvent = events.body.data.items.find((e: { data: { previous: Record<string, unknown> } }) => e.data.previous.config);
    expect(configEvent.data.previous).toEqual({
      config: { app_version: '2.11.0', size: 'small', env: { A: { value: '1', secret: false } }, hibernation: null },
      revision: 1,
      updated_at: d.updated_at,
    });
    const phases = (await call('GET', `/events?resource_id=${op.id}`, { key })).body.data.items.map(
      (e: { data: { object: { progress: { phase: string } } } }) => e.data.object.progress.phase,
    );
    expect(phases).toEqual(expect.arrayContaining(['queued', 'applying_config', 'restarting_services', 'updated']));
  });

  it('a patch that changes nothing answers 200 with the record and writes nothing; so does a secret set to its value', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, {
      app_type: 'airflow',
      config: { env: { S: { value: `${SECRET}same`, secret: true }, P: { value: 'p' } } },
    });
    const before = (await call('GET', '/events', { key })).body.data.pagination.total;
    for (const body of [{}, { config: {} }, { config: { size: 'small', env: { S: { value: `${SECRET}same` }, P: { value: 'p' } } } }]) {
      const res = await patch(key, d.id, body);
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"1"');
      expect(res.body.data).toEqual(await deployment(key, d.id));
    }
    expect((await call('GET', '/events', { key })).body.data.pagination.total).toBe(before);
    const changed = await patch(key, d.id, { config: { env: { S: { value: `${SECRET}other` } } } });
    expect(changed.status).toBe(202);
    expect((await operation(key, changed.body.data.operation_id)).changes).toEqual([
      { field: 'config.env.S', from: { secret: true }, to: { secret: true } },
    ]);
  });

  it('dry run: the record as it would be and the changes, writing nothing; dry_run other than true/false is 400', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', config: { app_version: '2.10.5' } });
    const res = await patch(
      key,
      d.id,
      { config: { app_version: '3.0.6', env: { K: { value: `${SECRET}dry`, secret: true } } } },
      {},
      '?dry_run=true',
    );
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    expect(res.body.data.changes).toEqual([
      { field: 'config.app_version', from: '2.10.5', to: '3.0.6' },
      { field: 'config.env.K', from: null, to: { secret: true } },
    ]);
    expect(res.body.data.deployment).toMatchObject({
      id: d.id,
      revision: 2,
      config: { app_version: '3.0.6', env: { K: { secret: true } } },
    });
    expect(JSON.stringify(res.body)).not.toContain(`${SECRET}dry`);
    expect(await deployment(key, d.id)).toEqual(d);
    const none = await patch(key, d.id, {}, {}, '?dry_run=true');
    expect(none.body.data.changes).toEqual([]);
    expect((await patch(key, d.id, {}, {}, '?dry_run=yes')).status).toBe(400);
    expect((await patch(key, d.id, { config: { size: 'large' } }, {}, '?dry_run=false')).status).toBe(202);
  });

  it('checks in order: 415, 400 shape, 404, 400 against the config, 412, 409', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, {
      app_type: 'airflow',
      config: { app_version: '3.0.6', env: { S: { value: `${SECRET}o`, secret: true } } },
    });
    const missing = '00000000-0000-4000-8000-000000000000';
    const text = await call('PATCH', `/deployments/${missing}`, {
      key,
      rawBody: '{"config":{"size":"huge"}}',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(
      (
        await call('PATCH', `/deployments/${d.id}`, {
          key,
          body: { config: { size: 'large' } },
          headers: { 'Content-Type': 'application/json' },
        })
      ).status,
    ).toBe(202);
    await operationReaches(key, (await deployment(key, d.id)).links.operation.split('/').pop(), ['succeeded']);
    const shape = await patch(key, missing, { name: 'x' }, { 'If-Match': '"9"' });
    expect([shape.status, fields(shape)]).toEqual([400, ['name']]);
    expect((await patch(key, missing, { config: { app_version: '2.10.5' } }, { 'If-Match': '"9"' })).status).toBe(404);
    const downgrade = await patch(key, d.id, { config: { app_version: '2.10.5' } }, { 'If-Match': '"9"' });
    expect([downgrade.status, fields(downgrade)]).toEqual([400, ['config.app_version']]);
    const unsecret = await patch(key, d.id, { config: { env: { S: { secret: false } } } }, { 'If-Match': '"9"' });
    expect([unsecret.status, fields(unsecret)]).toEqual([400, ['config.env.S.value']]);
    for (const ifMatch of ['"9"', '"1"', '2', 'W/"2"', 'abc']) {
      const res = await patch(key, d.id, { config: { size: 'medium' } }, { 'If-Match': ifMatch });
      expect([ifMatch, res.status, res.body.error?.code]).toEqual([ifMatch, 412, 'PRECONDITION_FAILED']);
    }
    const started = await patch(key, d.id, { config: { size: 'medium' } }, { 'If-Match': '"2"' });
    expect(started.status).toBe(202);
    const busy = await patch(key, d.id, { config: { size: 'small' } }, { 'If-Match': '*' });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'OPERATION_IN_PROGRESS', operation_id: started.body.data.operation_id });
    for (const [method, path, body] of [
      ['POST', `/deployments/${d.id}/dag-syncs`, {}],
      ['POST', `/deployments/${d.id}/users`, { username: 'ann', email: 'ann@example.com', role: 'viewer' }],
      ['POST', `/deployments/${d.id}/rollback`, { revision: 1 }],
    ] as const) {
      const res = await call(method, path, { key, body });
      expect([path, res.status, res.body.error?.operation_id]).toEqual([path, 409, started.body.data.operation_id]);
    }
    await operationReaches(key, started.body.data.operation_id, ['succeeded']);
  });

  it('a deployment that is not ready is 409 DEPLOYMENT_NOT_READY; a dag-sync in flight is 409 OPERATION_IN_PROGRESS for PATCH only', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key, { app_type: 'airflow' });
    const res = await patch(key, created.body.data.deployment_id, { config: { size: 'large' } });
    expect([res.status, res.body.error.code]).toEqual([409, 'DEPLOYMENT_NOT_READY']);
  });

  it('Idempotency-Key replays the first answer of a PATCH', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const first = await patch(key, d.id, { config: { size: 'large' } }, { 'Idempotency-Key': 'patch-1' });
    const again = await patch(key, d.id, { config: { size: 'large' } }, { 'Idempotency-Key': 'patch-1' });
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.operation_id).toBe(first.body.data.operation_id);
    const other = await patch(key, d.id, { config: { size: 'medium' } }, { 'Idempotency-Key': 'patch-1' });
    expect([other.status, other.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
  });
});

describe('revisions and rollback (decision 43)', () => {
  it('lists revisions newest first, gets one, and rolls back to one (secrets included) with rollback_of', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', config: { env: { S: { value: `${SECRET}v1`, secret: true } } } });
    await updated(key, await patch(key, d.id, { config: { size: 'medium', env: { S: { value: `${SECRET}v2` } } } }));
    await updated(key, await patch(key, d.id, { config: { size: 'large' } }));
    const list = await call('GET', `/deployments/${d.id}/revisions?per_page=2`, { key });
    expect(list.status).toBe(200);
    expect(list.body.data.items.map((r: { revision: number }) => r.revision)).toEqual([3, 2]);
    expect(list.body.data.pagination).toEqual({ page: 1, per_page: 2, total: 3, pages: 2 });
    expect(list.body.data.links.next).toBe(`/api/v1/deployments/${d.id}/revisions?page=2&per_page=2`);
    const first = await call('GET', `/deployments/${d.id}/revisions/1`, { key });
    expect(first.body.data).toEqual({
      revision: 1,
      config: { app_version: '3.1.3', size: 'small', env: { S: { secret: true } }, hibernation: null },
      created_at: d.created_at,
      operation_id: d.links.operation.split('/').pop(),
      rollback_of: null,
    });
    for (const n of ['4', '0', 'x']) {
      const res = await call('GET', `/deployments/${d.id}/revisions/${n}`, { key });
      expect([n, res.status, res.body.error.code]).toEqual([n, 404, 'REVISION_NOT_FOUND']);
    }
    const missing = await call('POST', `/deployments/${d.id}/rollback`, { key, body: { revision: 9 } });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'REVISION_NOT_FOUND']);
    const dry = await call('POST', `/deployments/${d.id}/rollback?dry_run=true`, { key, body: { revision: 1 } });
    expect(dry.status).toBe(200);
    expect(dry.body.data.changes).toEqual([
      { field: 'config.env.S', from: { secret: true }, to: { secret: true } },
      { field: 'config.size', from: 'large', to: 'small' },
    ]);
    const rollback = await call('POST', `/deployments/${d.id}/rollback`, { key, body: { revision: 1 } });
    expect(rollback.headers.etag).toBe('"3"');
    const op = await updated(key, rollback);
    expect(op.result).toEqual({ revision: 4 });
    const fourth = (await call('GET', `/deployments/${d.id}/revisions/4`, { key })).body.data;
    expect(fourth).toMatchObject({ revision: 4, rollback_of: 1, operation_id: op.id, config: first.body.data.config });
    // The secret is revision 1's again: setting it to that value changes nothing.
    expect((await patch(key, d.id, { config: { env: { S: { value: `${SECRET}v1` } } } })).status).toBe(200);
    const same = await call('POST', `/deployments/${d.id}/rollback`, { key, body: { revision: 4 } });
    expect([same.status, same.headers.etag]).toEqual([200, '"4"']);
  });

  it('rolling back to a lower app_version is 400', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', config: { app_version: '2.10.5' } });
    await updated(key, await patch(key, d.id, { config: { app_version: '3.0.6' } }));
    const res = await call('POST', `/deployments/${d.id}/rollback`, { key, body: { revision: 1 } });
    expect([res.status, fields(res)]).toEqual([400, ['config.app_version']]);
  });
});

describe('the update workflow (decision 42)', () => {
  /** What the driver was asked: each phase's configuration, and restores. */
  const seen: { phase: string; config?: PlatformConfig }[] = [];
  const restored: string[] = [];
  let failPhase: string | undefined;
  const simulated = simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: '' });
  beforeAll(() => {
    inject('HostingPlatform', {
      start: (job) => {
        seen.push({ phase: job.phase, ...(job.config ? { config: job.config } : {}) });
        return simulated.start(job);
      },
      check: async (handle, log) => {
        const { phase } = JSON.parse(handle) as { phase: string };
        if (phase === failPhase) return { state: 'failed', transient: false, message: `The platform refused ${phase}.` };
        const status = await simulated.check(handle);
        // A driver that echoes what it was handed: the workflow must redact it (decision 41).
        const echo = seen.findLast((s) => s.phase === phase)?.config?.env.ECHO?.value;
        return echo && log && !log.after ? { ...status, log: { lines: [{ level: 'info', message: `got ${echo}` }], cursor: '1' } } : status;
      },
      cancel: (handle) => simulated.cancel(handle),
      restore: async (job) => {
        restored.push(job.operationId);
      },
    });
  });
  afterAll(() => inject('HostingPlatform', simulated));
  afterEach(() => {
    failPhase = undefined;
  });

  it('hands the driver the configuration with its secrets opened, and no table item holds a secret value in the clear', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', config: { env: { S: { value: `${SECRET}table1`, secret: true } } } });
    const op = await updated(key, await patch(key, d.id, { config: { env: { T: { value: `${SECRET}table2`, secret: true } } } }));
    const applied = seen.filter((s) => s.phase === 'applying_config' || s.phase === 'restarting_services');
    expect(applied.at(-1)?.config?.env).toEqual({
      S: { value: `${SECRET}table1`, secret: true },
      T: { value: `${SECRET}table2`, secret: true },
    });
    const { Items = [] } = await ddb.send(new ScanCommand({ TableName: tableName() }));
    const text = JSON.stringify(Items, (_k, v) => (v instanceof Set ? [...v] : v));
    expect(text).not.toContain(`${SECRET}table`);
    for (const path of [
      `/operations/${op.id}`,
      `/deployments/${d.id}/revisions`,
      `/events?resource_id=${d.id}`,
      `/events?resource_id=${op.id}`,
    ]) {
      expect(JSON.stringify((await call('GET', path, { key })).body)).not.toContain(SECRET);
    }
  });

  it('hands a create its configuration too, secrets opened, and redacts them from its log; a destroy gets none', async () => {
    const { key } = await createKey();
    const env = { ECHO: { value: `${SECRET}create-echo`, secret: true }, PLAIN: { value: 'p' } };
    const d = await readyDeployment(key, { app_type: 'airflow', config: { size: 'medium', env } });
    const created = seen.filter((s) => s.phase === 'provisioning_db' || s.phase === 'provisioning_infrastructure').slice(-2);
    expect(created.map((s) => s.config)).toEqual(
      [0, 1].map(() => ({
        app_version: d.config.app_version,
        size: 'medium',
        env: { ECHO: { value: `${SECRET}create-echo`, secret: true }, PLAIN: { value: 'p', secret: false } },
      })),
    );
    const logs = await call('GET', `${d.links.operation.replace(/^\/api\/v1/, '')}/logs`, { key });
    const text = JSON.stringify(logs.body);
    expect(text).toContain(WITHHELD);
    expect(text).not.toContain(SECRET);
    const destroy = await call('DELETE', `/deployments/${d.id}`, { key });
    await operationReaches(key, destroy.body.data.operation_id, ['succeeded']);
    expect(seen.filter((s) => s.phase.startsWith('destroying')).every((s) => !s.config)).toBe(true);
  });

  it.each(['applying_config', 'restarting_services'])(
    'a failure in %s leaves the deployment ready with its configuration, and asks the driver to restore it',
    async (phase) => {
      const { key } = await createKey();
      const d = await readyDeployment(key, { app_type: 'airflow' });
      failPhase = phase;
      const op = await updated(key, await patch(key, d.id, { config: { size: 'large' } }));
      expect(op).toMatchObject({ status: 'failed', progress: { phase }, error: { message: `The platform refused ${phase}.` } });
      expect(await deployment(key, d.id)).toMatchObject({ status: 'ready', revision: 1, config: d.config });
      expect(restored).toContain(op.id);
      // Nothing is in flight any more: the next update starts.
      failPhase = undefined;
      expect((await patch(key, d.id, { config: { size: 'large' } })).status).toBe(202);
    },
  );

  it('cancel (decision 22) leaves the deployment ready with its configuration; DELETE cancels an update in flight', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow' });
    const started = await patch(key, d.id, { config: { size: 'large' } });
    const canceled = await call('POST', `/operations/${started.body.data.operation_id}/cancel`, { key, body: {} });
    expect([canceled.status, canceled.body.data?.status]).toEqual([200, 'canceled']);
    expect(await deployment(key, d.id)).toMatchObject({ status: 'ready', revision: 1, config: { size: 'small' } });
    const again = await patch(key, d.id, { config: { size: 'medium' } });
    expect(again.status).toBe(202);
    const destroy = await call('DELETE', `/deployments/${d.id}`, { key });
    expect(destroy.status).toBe(202);
    const update = await operation(key, again.body.data.operation_id);
    expect(update.status).toBe('canceled');
    expect(update.progress.message).toBe('Canceled by a destroy request.');
    await operationReaches(key, destroy.body.data.operation_id, ['succeeded']);
  });
});
