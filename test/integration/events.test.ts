/**
 * The event log (decision 37) through GET /events: each visible change appends one
 * event in the transaction that makes it, numbered 1, 2, 3, … per organization, with
 * the record after the change and what it changed; filters by type and resource.
 */
import { createDeployment, operationReaches } from '../helpers/api.js';
import { call, createKey } from '../helpers/fixtures.js';

// These tests poll faster than a client may.
process.env.RATE_LIMIT_PER_MINUTE = '1000';

async function allEvents(key: string, query = '') {
  const res = await call('GET', `/events?per_page=100${query}`, { key });
  expect(res.status).toBe(200);
  return res.body.data.items as {
    id: string;
    type: string;
    sequence: number;
    created_at: string;
    actor: unknown;
    data: { object: any; previous?: any };
  }[];
}

describe('GET /events', () => {
  it('tells the story of a create and a destroy, one event per change, in order, with no gaps', async () => {
    const { key, record } = await createKey();
    const created = await createDeployment(key, { app_type: 'airflow', name: 'evented' });
    const { deployment_id: depId, operation_id: createOp } = created.body.data;
    await operationReaches(key, createOp, ['succeeded']);
    const destroy = await call('DELETE', `/deployments/${depId}`, { key });
    await operationReaches(key, destroy.body.data.operation_id, ['succeeded']);

    const events = (await allEvents(key)).reverse();
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => `${e.type} ${e.data.object.id === depId ? 'dep' : 'op'}`)).toEqual([
      'deployment.created dep',
      'operation.created op',
      'operation.updated op', // running, provisioning_db
      'operation.updated op', // provisioning_infrastructure
      'operation.updated op', // succeeded
      'deployment.updated dep', // ready, with its url
      'operation.created op', // the destroy
      'deployment.updated dep', // destroying, links.operation
      'operation.updated op',
      'operation.updated op',
      'operation.updated op',
      'deployment.updated dep', // destroyed
    ]);
    for (const e of events) {
      expect(e.id).toMatch(/^evt_[0-9a-f-]{36}$/);
      expect(e.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(e.type.endsWith('.created')).toBe(e.data.previous === undefined);
      // Decision 46: the key's requests made the create and the destroy; the workflow the rest.
      const requested = [0, 1, 6, 7].includes(events.indexOf(e));
      expect(e.actor).toEqual(requested ? { type: 'api_key', id: record.id } : { type: 'system' });
    }
    // Time and sequence agree.
    expect([...events].sort((a, b) => a.created_at.localeCompare(b.created_at)).map((e) => e.sequence)).toEqual(
      events.map((e) => e.sequence),
    );

    // `object` is the record as its GET returns it; `previous` holds what changed, null for what was absent.
    const started = events[2]!;
    expect(started.data.previous).toEqual({
      status: 'queued',
      progress: { phase: 'queued', message: 'Waiting to start.' },
      started_at: null,
    });
    const ready = events[5]!;
    expect(ready.data.object).toEqual(
      expect.objectContaining({ id: depId, status: 'ready', url: `https://airflow.${depId}.apps.test.example` }),
    );
    // Decision 48: the move to ready carries the first health check; a destroy makes it unknown again.
    const createdAt = events[0]!.data.object.created_at;
    expect(ready.data.previous).toEqual({ status: 'provisioning', url: null, health: { status: 'unknown', since: createdAt } });
    expect(ready.data.object.health).toEqual({ status: 'healthy', since: ready.created_at });
    const destroying = events[7]!;
    expect(destroying.data.previous).toEqual({
      status: 'ready',
      url: ready.data.object.url,
      links: ready.data.object.links,
      health: ready.data.object.health,
    });
    expect(destroying.data.object.health).toEqual({ status: 'unknown', since: destroying.created_at });
    expect(destroying.data.object.links.operation).toBe(`/api/v1/operations/${destroy.body.data.operation_id}`);
    const final = (await call('GET', `/deployments/${depId}`, { key })).body.data;
    expect(events.at(-1)!.data.object).toEqual(final);
  });

  it('filters by type, by resource (dep_ prefix too), and both; pages carry the true total', async () => {
    const { key } = await createKey();
    const a = await createDeployment(key);
    const b = await createDeployment(key);
    await operationReaches(key, a.body.data.operation_id, ['succeeded']);
    await operationReaches(key, b.body.data.operation_id, ['succeeded']);
    const all = await allEvents(key);
    expect(all).toHaveLength(12);

    const created = await allEvents(key, '&type=deployment.created');
    expect(created.map((e) => e.data.object.id).sort()).toEqual([a.body.data.deployment_id, b.body.data.deployment_id].sort());

    const ofA = await allEvents(key, `&resource_id=dep_${a.body.data.deployment_id}`);
    expect(ofA.map((e) => e.type)).toEqual(['deployment.updated', 'deployment.created']);
    const opOfA = await allEvents(key, `&resource_id=${a.body.data.operation_id}&type=operation.updated`);
    expect(opOfA).toHaveLength(3);
    expect(opOfA.every((e) => e.data.object.id === a.body.data.operation_id)).toBe(true);

    const page2 = await call('GET', '/events?type=operation.updated&per_page=4&page=2', { key });
    expect(page2.body.data.pagination).toEqual({ page: 2, per_page: 4, total: 6, pages: 2 });
    expect(page2.body.data.items).toEqual(all.filter((e) => e.type === 'operation.updated').slice(4, 6));
  });

  it('refuses an unknown type with 400 INVALID_REQUEST, and shows another organization nothing', async () => {
    const { key } = await createKey();
    const stranger = await createKey();
    await createDeployment(key);
    const bad = await call('GET', '/events?type=deployment.deleted', { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'type', issue: expect.stringContaining('deployment.created') }]);
    const theirs = await call('GET', '/events', { key: stranger.key });
    expect(theirs.body.data).toMatchObject({ items: [], pagination: { total: 0, pages: 0 } });
  });
});
