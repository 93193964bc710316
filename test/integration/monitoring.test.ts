/**
 * Decisions 48 and 49 over HTTP on DynamoDB Local: a deployment's health (its record's
 * part, the health endpoint, what a check writes and the event a change makes) and its
 * metrics (validation per parameter, alignment, the same answer twice, 404s, scopes).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deploymentKey } from '../../contract/table/entities.js';
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { checkAll, checkDeployment } from '../../functions/app/deployment-health.js';
import { config } from '../../functions/lib/config.js';
import { runAsFunction } from '../../local/current-function.js';
import { createDeployment, deployment, operation, operationReaches, readyDeployment } from '../helpers/api.js';
import { dynamoCallsOf } from '../helpers/dynamo-calls.js';
import { type CallResult, call, createKey } from '../helpers/fixtures.js';

const env = (value: string) => ({ config: { env: { SIMULATE_UNHEALTHY: { value } } } });

async function events(key: string, resourceId: string): Promise<any[]> {
  const res = await call('GET', `/events?per_page=100&resource_id=${resourceId}`, { key });
  return res.body.data.items;
}

const health = async (key: string, id: string): Promise<CallResult> => call('GET', `/deployments/${id}/health`, { key });

describe('GET /deployments/{id}/health', () => {
  it('is unknown, unchecked and without components while the deployment is provisioning', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key, { app_type: 'superset' });
    const id = created.body.data.deployment_id;
    const d = await deployment(key, id);
    expect(d.health).toEqual({ status: 'unknown', since: d.created_at });
    const res = await health(key, id);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ status: 'unknown', since: d.created_at, checked_at: null, components: [] });
  });

  it('is healthy from the moment a create succeeds, with every component of the app type, in order', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow' });
    const op = await operation(key, d.links.operation.split('/').at(-1));
    expect(d.health).toEqual({ status: 'healthy', since: op.ended_at });
    const res = await health(key, d.id);
    expect(res.body.data).toEqual({
      status: 'healthy',
      since: op.ended_at,
      checked_at: op.ended_at,
      components: ['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db'].map((name) => ({
        name,
        status: 'healthy',
        since: op.ended_at,
        message: null,
      })),
    });
    // The create's move to ready carried the health: no event of its own.
    const updates = (await events(key, d.id)).filter((e) => e.type === 'deployment.updated');
    expect(updates).toHaveLength(1);
    expect(updates[0].data.previous).toEqual({ status: 'provisioning', url: null, health: { status: 'unknown', since: d.created_at } });
  });

  it.each([
    ['airflow', 'scheduler', 'unhealthy'],
    ['airflow', 'triggerer, dag_processor', 'degraded'],
    ['superset', 'webserver', 'unhealthy'],
    ['superset', 'scheduler (which superset has not)', 'healthy'],
  ])('%s with SIMULATE_UNHEALTHY=%s is %s, naming the components down', async (app_type, names, status) => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type, ...env(names) });
    expect(d.health.status).toBe(status);
    const { components } = (await health(key, d.id)).body.data;
    const down = components.filter((c: any) => c.status === 'unhealthy');
    expect(down.map((c: any) => c.name).sort()).toEqual(
      names
        .split(',')
        .map((n) => n.trim())
        .filter((n) => components.some((c: any) => c.name === n))
        .sort(),
    );
    for (const c of down) expect(c.message).toEqual(expect.stringContaining(c.name));
  });

  it('reads the deployment and its health in one DynamoDB call beside the key’s', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const { calls } = await dynamoCallsOf(() => health(key, d.id));
    // The key's admission, its usage entry (in parallel with the work) and the one Query.
    expect(calls.map((c) => c.command).sort()).toEqual(['PutItemCommand', 'QueryCommand', 'UpdateItemCommand']);
  });
});

describe('the health checker', () => {
  it('moves only checked_at when nothing changed: no event, no change of the record', async () => {
    const { key, record } = await createKey();
    const d = await readyDeployment(key);
    const before = (await health(key, d.id)).body.data;
    const eventsBefore = await events(key, d.id);
    const at = new Date(Date.parse(before.checked_at) + 60_000);
    const { result, calls } = await dynamoCallsOf(() => checkDeployment(record.org_id, d.id, at));
    expect(result).toBe('unchanged');
    // One read (the deployment's key range), one small write (checked_at).
    expect(calls.map((c) => c.command)).toEqual(['QueryCommand', 'UpdateItemCommand']);
    expect(Object.values(calls[1]!.input.ExpressionAttributeNames ?? {})).toEqual(['checked_at']);
    const after = (await health(key, d.id)).body.data;
    expect(after).toEqual({ ...before, checked_at: at.toISOString() });
    expect(await deployment(key, d.id)).toEqual(d);
    expect(await events(key, d.id)).toEqual(eventsBefore);
  });

  it('writes one deployment.updated event with previous.health and actor system when the rolled-up status changes', async () => {
    const { key, record } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', ...env('triggerer') });
    expect(d.health.status).toBe('degraded');
    const patched = await call('PATCH', `/deployments/${d.id}`, {
      key,
      body: { config: { env: { SIMULATE_UNHEALTHY: { value: 'scheduler' } } } },
    });
    expect(patched.status).toBe(202);
    await operationReaches(key, patched.body.data.operation_id, ['succeeded']);
    const updated = await deployment(key, d.id);
    const eventsBefore = await events(key, d.id);
    const at = new Date();
    expect(await checkDeployment(record.org_id, d.id, at)).toBe('status');
    const after = await deployment(key, d.id);
    expect(after.health).toEqual({ status: 'unhealthy', since: at.toISOString() });
    const added = (await events(key, d.id)).slice(0, -eventsBefore.length || undefined);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      type: 'deployment.updated',
      actor: { type: 'system' },
      data: { object: after, previous: { health: updated.health } },
    });
    expect(Object.keys(added[0].data.previous)).toEqual(['health']);
    const report = (await health(key, d.id)).body.data;
    expect(report.components.find((c: any) => c.name === 'scheduler')).toMatchObject({ status: 'unhealthy', since: at.toISOString() });
    // The triggerer came back: its since moved too; the others' did not.
    expect(report.components.find((c: any) => c.name === 'triggerer')).toMatchObject({ status: 'healthy', since: at.toISOString() });
    expect(report.components.find((c: any) => c.name === 'webserver').since).toBe(d.health.since);
  });

  it('changes only the component when the rolled-up status stays: no event', async () => {
    const { key, record } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', ...env('triggerer') });
    const patched = await call('PATCH', `/deployments/${d.id}`, {
      key,
      body: { config: { env: { SIMULATE_UNHEALTHY: { value: 'dag_processor' } } } },
    });
    await operationReaches(key, patched.body.data.operation_id, ['succeeded']);
    const stored = await deployment(key, d.id);
    const eventsBefore = await events(key, d.id);
    const at = new Date();
    expect(await checkDeployment(record.org_id, d.id, at)).toBe('components');
    expect(await deployment(key, d.id)).toEqual(stored);
    expect(await events(key, d.id)).toEqual(eventsBefore);
    const report = (await health(key, d.id)).body.data;
    expect(report).toMatchObject({ status: 'degraded', since: d.health.since, checked_at: at.toISOString() });
    expect(report.components.find((c: any) => c.name === 'dag_processor')).toMatchObject({ status: 'unhealthy', since: at.toISOString() });
  });

  it('leaves a deployment that is no longer ready, whose health reads unknown from the destroy on', async () => {
    const { key, record } = await createKey();
    const d = await readyDeployment(key);
    const del = await call('DELETE', `/deployments/${d.id}`, { key });
    expect(del.status).toBe(202);
    const destroying = await deployment(key, d.id);
    expect(destroying.health.status).toBe('unknown');
    expect(await checkDeployment(record.org_id, d.id)).toBe('unwatched');
    expect((await health(key, d.id)).body.data).toMatchObject({ status: 'unknown', components: [] });
  });

  it('visits every ready deployment in a round, within the grants of the checker function', async () => {
    const { key } = await createKey();
    const a = await readyDeployment(key);
    const b = await readyDeployment(key, { app_type: 'superset' });
    // As the scheduled function (and npm start's loop, local/health-checker.ts) runs it, so the grant check judges its requests.
    const round = await runAsFunction('check-health', () => checkAll());
    expect(round.checked).toBeGreaterThanOrEqual(2);
    for (const d of [a, b]) expect(Date.parse((await health(key, d.id)).body.data.checked_at)).toBeGreaterThan(Date.parse(d.health.since));
  });
});

describe('GET /deployments/{id}/metrics', () => {
  const metrics = (key: string, id: string, query = '') => call('GET', `/deployments/${id}/metrics${query}`, { key });

  it.each([
    ['?metrics=cpu_utilization,bogus', 'metrics'],
    ['?metrics=', 'metrics'],
    ['?period=120', 'period'],
    ['?period=abc', 'period'],
    ['?start=yesterday', 'start'],
    ['?end=2026-02-30T00:00:00Z', 'end'],
    ['?start=2020-01-01T00:00:00Z', 'start'],
    ['?start=2030-01-01T00:00:00.000Z&end=2030-01-01T01:00:00.000Z', 'start'],
    [`?start=${new Date(Date.now() - 3_600_000).toISOString()}&end=${new Date(Date.now() - 7_200_000).toISOString()}`, 'start'],
    [`?start=${new Date(Date.now() - 2 * 86_400_000).toISOString()}&period=60`, 'period'],
  ])('%s is 400 INVALID_REQUEST naming %s', async (query, field) => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const res = await metrics(key, d.id, query);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details.map((i: { field: string }) => i.field)).toEqual([field]);
  });

  it('aligns start down and end up to the period, lists the metrics asked in order, once each, with their units', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const end = new Date(Date.now() - 90_000);
    const start = new Date(end.getTime() - 2 * 3600_000 - 123_000);
    const res = await metrics(
      key,
      d.id,
      `?metrics=http_errors,cpu_utilization,http_errors&start=${start.toISOString()}&end=${end.toISOString()}&period=300`,
    );
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.period).toBe(300);
    expect(Date.parse(data.start) / 1000).toBe(Math.floor(start.getTime() / 300_000) * 300);
    expect(Date.parse(data.end) / 1000).toBe(Math.ceil(end.getTime() / 300_000) * 300);
    expect(data.series.map((s: any) => [s.metric, s.unit])).toEqual([
      ['http_errors', 'count'],
      ['cpu_utilization', 'percent'],
    ]);
  });

  it('defaults to the last hour of all five metrics in periods of 60 seconds', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const data = (await metrics(key, d.id)).body.data;
    expect(data.period).toBe(60);
    expect((Date.parse(data.end) - Date.parse(data.start)) / 1000).toBeGreaterThanOrEqual(3600);
    expect((Date.parse(data.end) - Date.parse(data.start)) / 1000).toBeLessThanOrEqual(3660);
    expect(data.series.map((s: any) => s.metric)).toEqual([
      'cpu_utilization',
      'memory_utilization',
      'http_requests',
      'http_errors',
      'response_time_p95',
    ]);
  });

  it('has points only for ended periods after the deployment became ready, the same at every request, within bounds', async () => {
    const { key, record } = await createKey();
    const d = await readyDeployment(key);
    // As if it became ready 30 minutes ago (and 7 seconds): the simulated platform has run it since.
    const readyAt = Math.floor(Date.now() / 60_000) * 60_000 - 30 * 60_000 - 7_000;
    await ddb.send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: deploymentKey(record.org_id, d.id),
        UpdateExpression: 'SET ready_at = :at',
        ExpressionAttributeValues: { ':at': new Date(readyAt).toISOString() },
      }),
    );
    const query = `?start=${new Date(readyAt - 3600_000).toISOString()}&end=${new Date().toISOString()}&period=60`;
    const first = (await metrics(key, d.id, query)).body.data;
    const second = (await metrics(key, d.id, query)).body.data;
    expect(second).toEqual(first);
    const requests = first.series.find((s: any) => s.metric === 'http_requests').points;
    const errors = first.series.find((s: any) => s.metric === 'http_errors').points;
    for (const p of requests) {
      const t = Date.parse(p.time);
      expect(t % 60_000).toBe(0);
      expect(t + 60_000).toBeGreaterThan(readyAt);
      expect(t + 60_000).toBeLessThanOrEqual(Date.now());
      expect(Number.isInteger(p.value) && p.value >= 0).toBe(true);
    }
    errors.forEach((p: any, i: number) => {
      expect(p.value).toBeLessThanOrEqual(requests[i].value);
    });
    for (const s of first.series.filter((x: any) => x.unit === 'percent'))
      for (const p of s.points) expect(p.value >= 0 && p.value <= 100).toBe(true);
    // Every ended minute since it was ready, and nothing before.
    expect(requests[0].time).toBe(new Date(readyAt - (readyAt % 60_000)).toISOString());
    expect(requests.length).toBeGreaterThanOrEqual(30);
    expect(first.series.every((s: any) => s.points.length === requests.length)).toBe(true);
  });

  it('reads one item beside the key’s calls', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const { calls } = await dynamoCallsOf(() => metrics(key, d.id));
    expect(calls.map((c) => c.command).sort()).toEqual(['GetItemCommand', 'PutItemCommand', 'UpdateItemCommand']);
  });
});

describe.each(['health', 'metrics'])('GET /deployments/{id}/%s', (what) => {
  it('answers 404 for an unknown, malformed or other organization’s id, and needs deployments:read', async () => {
    const { key } = await createKey();
    const other = await createKey();
    const d = await readyDeployment(other.key);
    for (const id of [d.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await call('GET', `/deployments/${id}/${what}`, { key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('DEPLOYMENT_NOT_FOUND');
    }
    const narrow = await createKey({ orgId: other.record.org_id, scopes: ['operations:read'] });
    const refused = await call('GET', `/deployments/${d.id}/${what}`, { key: narrow.key });
    expect(refused.status).toBe(403);
  });
});
