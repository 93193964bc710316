/**
 * Decision 50 over HTTP on DynamoDB Local with the real ASL: hibernate and wake (their
 * answers, checks in order, operations and phases, the record's `hibernation` and health, the
 * events), what a hibernated deployment refuses, and `config.hibernation` (validation,
 * merge patch, dry run, revisions, rollback).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deployment as deploymentEntity, deploymentKey } from '../../contract/table/entities.js';
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { runSchedule, visitDue } from '../../functions/app/hibernation-scheduler.js';
import { config } from '../../functions/lib/config.js';
import { runAsFunction } from '../../local/current-function.js';
import { createDeployment, deployment, operation, operationReaches, readyDeployment } from '../helpers/api.js';
import { type CallResult, call, createKey } from '../helpers/fixtures.js';

const BERLIN = { schedules: [{ hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5' }], time_zone: 'Europe/Berlin' };

const hibernate = (key: string, id: string, body?: unknown, headers?: Record<string, string>) =>
  call('POST', `/deployments/${id}/hibernate`, { key, body, ...(headers ? { headers } : {}) });
const wake = (key: string, id: string, body?: unknown) => call('POST', `/deployments/${id}/wake`, { key, body });

async function events(key: string, resourceId: string): Promise<any[]> {
  const res = await call('GET', `/events?per_page=100&resource_id=${resourceId}`, { key });
  return res.body.data.items;
}

/** Hibernates a ready deployment and waits for the operation to succeed. */
async function hibernated(key: string, id: string, body?: unknown) {
  const res = await hibernate(key, id, body);
  expect(res.status).toBe(202);
  await operationReaches(key, res.body.data.operation_id, ['succeeded']);
  return deployment(key, id);
}

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('POST /deployments/{id}/hibernate and /wake', () => {
  it('hibernates with a 202 like decision 42’s, phases queued → stopping_services → hibernated, then wakes', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    expect(d.hibernation).toEqual({ state: 'awake', until: null });
    const res = await hibernate(key, d.id);
    expect(res.status).toBe(202);
    const opId = res.body.data.operation_id;
    expect(res.body.data).toEqual({
      deployment_id: d.id,
      operation_id: opId,
      links: { deployment: `/api/v1/deployments/${d.id}`, operation: `/api/v1/operations/${opId}` },
    });
    expect(res.headers.location).toBe(`/api/v1/operations/${opId}`);
    expect(res.headers['retry-after']).toBe('2');
    const op = await operationReaches(key, opId, ['succeeded', 'failed']);
    expect(op).toMatchObject({ type: 'deployment.hibernate', status: 'succeeded', progress: { phase: 'hibernated' } });
    const after = await deployment(key, d.id);
    expect(after).toMatchObject({ status: 'ready', url: d.url, hibernation: { state: 'hibernated', until: null } });
    expect(after.health).toEqual({ status: 'hibernated', since: op.ended_at });
    const health = (await call('GET', `/deployments/${d.id}/health`, { key })).body.data;
    expect(health).toMatchObject({ status: 'hibernated', components: [] });
    // The phases the operation went through, and the record's change with actor system.
    const all = await events(key, d.id);
    const phases = (await events(key, opId)).map((e) => e.data.object.progress.phase).reverse();
    expect(phases).toEqual(['queued', 'stopping_services', 'hibernated']);
    const change = all.find((e) => e.type === 'deployment.updated' && e.data.previous.hibernation);
    expect(change.actor).toEqual({ type: 'system' });
    expect(change.data.previous.hibernation).toEqual({ state: 'awake', until: null });
    expect(change.data.object.hibernation).toEqual({ state: 'hibernated', until: null });

    const woken = await wake(key, d.id);
    expect(woken.status).toBe(202);
    const wop = await operationReaches(key, woken.body.data.operation_id, ['succeeded', 'failed']);
    expect(wop).toMatchObject({ type: 'deployment.wake', status: 'succeeded', progress: { phase: 'awake' } });
    const awake = await deployment(key, d.id);
    expect(awake.hibernation).toEqual({ state: 'awake', until: null });
    // The wake's success carries a first check (decision 48).
    expect(awake.health).toEqual({ status: 'healthy', since: wop.ended_at });
    const components = (await call('GET', `/deployments/${d.id}/health`, { key })).body.data.components;
    expect(components.map((c: any) => c.status)).toEqual(Array(5).fill('healthy'));
  });

  it('answers 200 with the record when already in the asked state, recording an until', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    const same = await wake(key, d.id);
    expect(same.status).toBe(200);
    expect(same.body.data).toEqual(d);
    const until = inAnHour();
    const held = await wake(key, d.id, { until });
    expect(held.status).toBe(200);
    expect(held.body.data.hibernation).toEqual({ state: 'awake', until });
    expect((await deployment(key, d.id)).hibernation).toEqual({ state: 'awake', until });
    const change = (await events(key, d.id)).find((e) => e.type === 'deployment.updated' && e.data.previous.hibernation);
    expect(change.actor.type).toBe('api_key');
  });

  it('records a hibernate’s until at once and keeps it through the operation', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    const until = inAnHour();
    const after = await hibernated(key, d.id, { until });
    expect(after.hibernation).toEqual({ state: 'hibernated', until });
  });

  it.each([
    [{ until: new Date(Date.now() - 60_000).toISOString() }, 'until'],
    [{ until: new Date(Date.now() + 8 * 86400_000).toISOString() }, 'until'],
    [{ until: 'tomorrow' }, 'until'],
    [{ until: inAnHour(), extra: 1 }, 'extra'],
  ])('refuses %j with 400 naming %s, changing nothing', async (body, field) => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    const res = await hibernate(key, d.id, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details.map((x: any) => x.field)).toContain(field);
    expect(await deployment(key, d.id)).toEqual(d);
  });

  it('checks 404, then not ready, then the state (200), then an operation in progress (409 with its id)', async () => {
    const { key } = await createKey();
    expect((await hibernate(key, '00000000-0000-4000-8000-000000000000')).body.error.code).toBe('DEPLOYMENT_NOT_FOUND');
    const created = await createDeployment(key, { app_type: 'superset' });
    const provisioning = await wake(key, created.body.data.deployment_id);
    expect(provisioning.status).toBe(409);
    expect(provisioning.body.error.code).toBe('DEPLOYMENT_NOT_READY');
    const d = await readyDeployment(key, { app_type: 'superset' });
    const first = await hibernate(key, d.id);
    expect(first.status).toBe(202);
    // Awake still: a wake is already in that state (200) before the hibernate in flight counts.
    expect((await wake(key, d.id)).status).toBe(200);
    const again = await hibernate(key, d.id);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'OPERATION_IN_PROGRESS', operation_id: first.body.data.operation_id });
    await operationReaches(key, first.body.data.operation_id, ['succeeded']);
  });

  it('cannot be canceled, and a DELETE while one runs is 409 OPERATION_IN_PROGRESS', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    const res = await hibernate(key, d.id);
    const opId = res.body.data.operation_id;
    const cancel = await call('POST', `/operations/${opId}/cancel`, { key });
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('OPERATION_NOT_CANCELABLE');
    const del = await call('DELETE', `/deployments/${d.id}`, { key });
    expect(del.status).toBe(409);
    expect(del.body.error).toMatchObject({ code: 'OPERATION_IN_PROGRESS', operation_id: opId });
    await operationReaches(key, opId, ['succeeded']);
    // Hibernated, it can be destroyed.
    const destroy = await call('DELETE', `/deployments/${d.id}`, { key });
    expect(destroy.status).toBe(202);
    await operationReaches(key, destroy.body.data.operation_id, ['succeeded']);
  });

  it('replays an Idempotency-Key: the same 202 and operation, nothing started twice', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    const headers = { 'Idempotency-Key': `hib-${d.id}` };
    const first = await hibernate(key, d.id, {}, headers);
    const second = await hibernate(key, d.id, {}, headers);
    expect(second.status).toBe(202);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
    await operationReaches(key, first.body.data.operation_id, ['succeeded']);
  });
});

describe('a hibernated deployment', () => {
  let key: string;
  let record: { org_id: string };
  let d: any;
  beforeAll(async () => {
    ({ key, record } = await createKey());
    const ready = await readyDeployment(key, { app_type: 'airflow' });
    d = await hibernated(key, ready.id);
  });

  const expectHibernated = (res: CallResult) => {
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('DEPLOYMENT_HIBERNATED');
  };

  it('refuses DAG syncs and app users with 409 DEPLOYMENT_HIBERNATED', async () => {
    expectHibernated(await call('POST', `/deployments/${d.id}/dag-syncs`, { key, body: {} }));
    expectHibernated(
      await call('POST', `/deployments/${d.id}/users`, { key, body: { username: 'ann', email: 'ann@example.com', role: 'viewer' } }),
    );
  });

  it('refuses a PATCH, a dry run and a rollback that change anything but config.hibernation', async () => {
    const body = { config: { size: 'medium' } };
    expectHibernated(await call('PATCH', `/deployments/${d.id}`, { key, body }));
    expectHibernated(await call('PATCH', `/deployments/${d.id}?dry_run=true`, { key, body }));
    // A 412 comes before it (decision 42's order).
    const stale = await call('PATCH', `/deployments/${d.id}`, { key, body, headers: { 'If-Match': '"9"' } });
    expect(stale.status).toBe(412);
    expect((await deployment(key, d.id)).revision).toBe(1);
  });

  it('takes a change of config.hibernation alone, and a rollback of it', async () => {
    const dry = await call('PATCH', `/deployments/${d.id}?dry_run=true`, { key, body: { config: { hibernation: BERLIN } } });
    expect(dry.status).toBe(200);
    expect(dry.body.data.changes).toEqual([{ field: 'config.hibernation', from: null, to: BERLIN }]);
    const res = await call('PATCH', `/deployments/${d.id}`, { key, body: { config: { hibernation: BERLIN } } });
    expect(res.status).toBe(202);
    await operationReaches(key, res.body.data.operation_id, ['succeeded']);
    const after = await deployment(key, d.id);
    expect(after.config.hibernation).toEqual(BERLIN);
    expect(after.hibernation.state).toBe('hibernated');
    const back = await call('POST', `/deployments/${d.id}/rollback`, { key, body: { revision: 1 } });
    expect(back.status).toBe(202);
    await operationReaches(key, back.body.data.operation_id, ['succeeded']);
    expect((await deployment(key, d.id)).config.hibernation).toBeNull();
  });

  it('has no metric points while hibernated', async () => {
    // Moved into the past, so that whole periods before, during and after the span have ended.
    const now = Date.now();
    const minutes = (n: number) => new Date(Math.floor(now / 60_000) * 60_000 - n * 60_000).toISOString();
    await ddb.send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: deploymentKey(record.org_id, d.id),
        UpdateExpression: 'SET ready_at = :r, hibernated_spans = :s',
        ExpressionAttributeValues: {
          ':r': minutes(120),
          ':s': [
            { from: minutes(90), to: minutes(30) },
            { from: minutes(10), to: null },
          ],
        },
      }),
    );
    const res = await call('GET', `/deployments/${d.id}/metrics?start=${minutes(120)}&end=${minutes(0)}&period=60&metrics=http_requests`, {
      key,
    });
    expect(res.status).toBe(200);
    const times = res.body.data.series[0].points.map((p: any) => p.time);
    expect(times.length).toBeGreaterThan(0);
    const inside = times.filter((t: string) => (t >= minutes(90) && t < minutes(30)) || t >= minutes(10));
    expect(inside).toEqual([]);
    expect(times).toContain(minutes(91));
    expect(times).toContain(minutes(30));
  });
});

describe('config.hibernation', () => {
  it('is null by default, shown as null', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key, { app_type: 'superset' });
    expect((await deployment(key, created.body.data.deployment_id)).config.hibernation).toBeNull();
  });

  it('is set at creation, its time zone UTC by default and shown', async () => {
    const { key } = await createKey();
    const schedules = [{ hibernate: '30 18 * * *', wake: '0 8 * * *' }];
    const created = await createDeployment(key, { app_type: 'superset', config: { hibernation: { schedules } } });
    expect(created.status).toBe(202);
    const d = await deployment(key, created.body.data.deployment_id);
    expect(d.config.hibernation).toEqual({ schedules, time_zone: 'UTC' });
    const revision = (await call('GET', `/deployments/${d.id}/revisions/1`, { key })).body.data;
    expect(revision.config.hibernation).toEqual({ schedules, time_zone: 'UTC' });
  });

  it.each([
    [{ schedules: [] }, 'config.hibernation.schedules'],
    [{ schedules: Array(11).fill({ hibernate: '0 19 * * *', wake: '0 7 * * *' }) }, 'config.hibernation.schedules'],
    [{ schedules: [{ hibernate: '0 19 * *', wake: '0 7 * * *' }] }, 'config.hibernation.schedules.0.hibernate'],
    [{ schedules: [{ hibernate: '0 19 * * *', wake: '0 7 * * 7' }] }, 'config.hibernation.schedules.0.wake'],
    [{ schedules: [{ hibernate: '0 19 * * MON', wake: '0 7 * * *' }] }, 'config.hibernation.schedules.0.hibernate'],
    [{ schedules: [{ hibernate: '0 19 * * *' }] }, 'config.hibernation.schedules.0.wake'],
    [{ ...BERLIN, time_zone: 'Mars/Olympus' }, 'config.hibernation.time_zone'],
    [{ ...BERLIN, extra: true }, 'config.hibernation'],
  ])('refuses %j at creation and by PATCH, naming %s', async (hibernation, field) => {
    const { key } = await createKey();
    const created = await createDeployment(key, { app_type: 'superset', config: { hibernation } });
    expect(created.status).toBe(400);
    expect(created.body.error.details.map((x: any) => x.field).join(' ')).toContain(field);
    const d = await readyDeployment(key, { app_type: 'superset' });
    const patched = await call('PATCH', `/deployments/${d.id}`, { key, body: { config: { hibernation } } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details.map((x: any) => x.field).join(' ')).toContain(field);
  });

  it('merges a patch (RFC 7396): the list replaced whole, time_zone kept or set, null removes it', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset', config: { hibernation: BERLIN } });
    const tz = await call('PATCH', `/deployments/${d.id}?dry_run=true`, {
      key,
      body: { config: { hibernation: { time_zone: 'America/New_York' } } },
    });
    expect(tz.body.data.changes).toEqual([{ field: 'config.hibernation', from: BERLIN, to: { ...BERLIN, time_zone: 'America/New_York' } }]);
    const list = [{ hibernate: '0 22 * * *', wake: '0 6 * * *' }];
    const replaced = await call('PATCH', `/deployments/${d.id}?dry_run=true`, {
      key,
      body: { config: { hibernation: { schedules: list } } },
    });
    expect(replaced.body.data.deployment.config.hibernation).toEqual({ schedules: list, time_zone: 'Europe/Berlin' });
    const same = await call('PATCH', `/deployments/${d.id}`, { key, body: { config: { hibernation: BERLIN } } });
    expect(same.status).toBe(200);
    const removed = await call('PATCH', `/deployments/${d.id}`, { key, body: { config: { hibernation: null } } });
    expect(removed.status).toBe(202);
    const op = await operationReaches(key, removed.body.data.operation_id, ['succeeded']);
    expect(op.changes).toEqual([{ field: 'config.hibernation', from: BERLIN, to: null }]);
    expect((await deployment(key, d.id)).config.hibernation).toBeNull();
    expect((await operation(key, op.id)).result).toEqual({ revision: 2 });
  });
});

describe('the scheduler (an injected clock)', () => {
  /** The deployment's item as stored: its next visit is not shown. */
  const stored = async (orgId: string, id: string) => (await getDeployment(orgId, id, true))!;

  /** A ready deployment whose schedule hibernates at `hibernate` and wakes at `wake`, with its next visit moved to `at`. */
  async function scheduled(schedules: { hibernate: string; wake: string }[], at: string, timeZone = 'UTC') {
    const { key, record } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset', config: { hibernation: { schedules, time_zone: timeZone } } });
    await setDue(record.org_id, d.id, at);
    return { key, orgId: record.org_id, d };
  }

  async function setDue(orgId: string, id: string, at: string) {
    const keys = deploymentEntity.indexes.hibernationDue.keys({ org_id: orgId, id, hibernation_due: at });
    await ddb.send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: deploymentKey(orgId, id),
        UpdateExpression: 'SET hibernation_due = :d, gsi5pk = :pk, gsi5sk = :sk',
        ExpressionAttributeValues: { ':d': at, ':pk': keys.gsi5pk, ':sk': keys.gsi5sk },
      }),
    );
  }

  // A Monday, 19:00 in Berlin (UTC+1 in winter).
  const MONDAY_1900_BERLIN = Date.parse('2030-01-07T18:00:00.000Z');
  const clock = (ms: number) => () => new Date(ms);
  /** One round at the injected instant, as the scheduled function (its grants are checked against what it sends). */
  const round = (ms: number) => runAsFunction('run-hibernation-schedule', () => runSchedule({ now: clock(ms) }));

  it('finds a due deployment through the index, hibernates it with actor system, and plans its next visit', async () => {
    const { key, orgId, d } = await scheduled(BERLIN.schedules, '2030-01-07T18:00:00.000Z', 'Europe/Berlin');
    const first = await round(MONDAY_1900_BERLIN + 20_000);
    expect(first.minute).toBe('2030-01-07T18:00:00.000Z');
    expect(first.results.started).toBeGreaterThanOrEqual(1);
    const opId = (await deployment(key, d.id)).links.operation.split('/').pop();
    const op = await operationReaches(key, opId, ['succeeded']);
    expect(op.type).toBe('deployment.hibernate');
    const created = (await events(key, opId)).find((e) => e.type === 'operation.created');
    expect(created.actor).toEqual({ type: 'system' });
    expect((await deployment(key, d.id)).hibernation.state).toBe('hibernated');
    // Next: Tuesday 07:00 Berlin.
    expect((await stored(orgId, d.id)).hibernation_due).toBe('2030-01-08T06:00:00.000Z');
  });

  it('does not replay a missed minute: a deployment due earlier is only planned again', async () => {
    const { key, orgId, d } = await scheduled(BERLIN.schedules, '2030-01-07T18:00:00.000Z', 'Europe/Berlin');
    await round(MONDAY_1900_BERLIN + 5 * 60_000);
    expect((await deployment(key, d.id)).hibernation.state).toBe('awake');
    expect((await deployment(key, d.id)).links.operation).toBe(d.links.operation);
    expect((await stored(orgId, d.id)).hibernation_due).toBe('2030-01-08T06:00:00.000Z');
  });

  it('skips a minute where both kinds match, and a deployment already in that state', async () => {
    const both = await scheduled([{ hibernate: '0 18 * * *', wake: '0 18 * * *' }], '2030-01-07T18:00:00.000Z');
    const awake = await scheduled([{ hibernate: '0 5 * * *', wake: '0 18 * * *' }], '2030-01-07T18:00:00.000Z');
    await round(MONDAY_1900_BERLIN);
    for (const { key, d } of [both, awake]) expect((await deployment(key, d.id)).links.operation).toBe(d.links.operation);
  });

  it('skips the minutes before a manual hold’s until, then ends the hold (until null, actor system)', async () => {
    const { key, orgId, d } = await scheduled([{ hibernate: '0 18 * * *', wake: '0 6 * * *' }], '2030-01-07T18:00:00.000Z');
    // A hold recorded as a request would (awake until 18:30), moved to the injected day.
    const until = '2030-01-07T18:30:00.000Z';
    const held = await wake(key, d.id, { until: inAnHour() });
    expect(held.status).toBe(200);
    await ddb.send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: deploymentKey(orgId, d.id),
        UpdateExpression: 'SET hibernation = :h',
        ExpressionAttributeValues: { ':h': { state: 'awake', until } },
      }),
    );
    await setDue(orgId, d.id, '2030-01-07T18:00:00.000Z');
    await round(MONDAY_1900_BERLIN);
    const during = await deployment(key, d.id);
    expect(during.hibernation).toEqual({ state: 'awake', until });
    expect(during.links.operation).toBe(d.links.operation);
    expect((await stored(orgId, d.id)).hibernation_due).toBe(until);
    await round(Date.parse(until) + 10_000);
    expect((await deployment(key, d.id)).hibernation).toEqual({ state: 'awake', until: null });
    const ended = (await events(key, d.id)).find((e) => e.data.previous?.hibernation?.until === until);
    expect(ended.actor).toEqual({ type: 'system' });
    // Nothing left but the schedule: its next transition.
    expect((await stored(orgId, d.id)).hibernation_due).toBe('2030-01-08T06:00:00.000Z');
  });

  it('decides from the table when the index’s copy of a record is behind it', async () => {
    const { key, orgId, d } = await scheduled([{ hibernate: '0 18 * * *', wake: '0 6 * * *' }], '2030-01-07T18:00:00.000Z');
    const current = await stored(orgId, d.id);
    // The index's copy from before the schedule was set: alone it would drop the deployment from the list.
    const behind = { ...current, config: { ...current.config, hibernation: null }, updated_at: '2030-01-01T00:00:00.000Z' };
    const entry = { orgId, deploymentId: d.id, due: current.hibernation_due!, record: behind };
    const result = await runAsFunction('run-hibernation-schedule', () => visitDue(entry, MONDAY_1900_BERLIN, new Date(MONDAY_1900_BERLIN)));
    expect(result).toBe('started');
    const opId = (await deployment(key, d.id)).links.operation.split('/').pop();
    expect((await operation(key, opId)).type).toBe('deployment.hibernate');
    expect((await stored(orgId, d.id)).hibernation_due).toBe('2030-01-08T06:00:00.000Z');
  });

  it('drops a deployment whose schedule was removed from the list', async () => {
    const { key, orgId, d } = await scheduled([{ hibernate: '0 18 * * *', wake: '0 6 * * *' }], '2030-01-07T18:00:00.000Z');
    const removed = await call('PATCH', `/deployments/${d.id}`, { key, body: { config: { hibernation: null } } });
    await operationReaches(key, removed.body.data.operation_id, ['succeeded']);
    await setDue(orgId, d.id, '2030-01-07T18:00:00.000Z');
    await round(MONDAY_1900_BERLIN);
    expect((await stored(orgId, d.id)).hibernation_due).toBeUndefined();
  });
});
