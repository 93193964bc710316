import { randomUUID } from 'node:crypto';
import type { WorkPhase } from '../../functions/core/platform.js';
import { createDeployment, deployment, operation, operationReaches, readyDeployment } from '../helpers/api.js';
import { platformOf } from '../helpers/call-platform.js';
import { call, createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

// These tests poll operations far faster than the 1 request/second a client may (docs/api.md, section 11).
process.env.RATE_LIMIT_PER_MINUTE = '1000';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * This file's workflows run on the simulated platform with phases long enough to act
 * on a running operation, except deployments named `stepwise-*`, whose phases wait
 * for the test to open them one by one.
 */
const gates = new Map<string, () => void>();
const opened = (key: string) => new Promise<void>((resolve) => gates.set(key, resolve));
const platform = platformOf(
  (phase) => async (t) =>
    t.name.startsWith('stepwise') ? opened(`${t.deploymentId}:${phase}`) : new Promise<void>((r) => setTimeout(r, 600)),
);
workflowsOn(platform, {
  retryIntervalMs: 5,
  release: () => {
    for (const open of gates.values()) open();
  },
});

/** Opens a held phase once the workflow is waiting in it. */
async function openPhase(deploymentId: string, phase: WorkPhase) {
  const key = `${deploymentId}:${phase}`;
  await eventually(async () => gates.has(key), `the workflow to reach ${phase}`);
  gates.get(key)!();
}

describe('the create operation', () => {
  it('moves queued → running (provisioning_db → provisioning_infrastructure) → succeeded with timestamps and result', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key, { app_type: 'airflow', name: 'stepwise-1' });
    const { operation_id: opId, deployment_id: depId } = created.body.data;
    const first = await operation(key, opId);
    expect(['queued', 'running']).toContain(first.status);
    if (first.status === 'queued') {
      expect(first.progress).toEqual({ phase: 'queued', message: expect.any(String) });
      expect(first.started_at).toBeUndefined();
    }
    expect(first.ended_at).toBeUndefined();

    const inDb = await operationReaches(key, opId, ['running']);
    expect(inDb.progress).toEqual({ phase: 'provisioning_db', message: 'Provisioning the database.' });
    expect(inDb.started_at).toMatch(ISO_MS);
    expect(inDb.ended_at).toBeUndefined();
    expect((await deployment(key, depId)).status).toBe('provisioning');
    await openPhase(depId, 'provisioning_db');

    const inInfra = await eventually(async () => {
      const op = await operation(key, opId);
      return op.progress.phase === 'provisioning_infrastructure' ? op : undefined;
    }, 'provisioning_infrastructure');
    expect(inInfra).toMatchObject({ status: 'running', started_at: inDb.started_at });
    expect((await deployment(key, depId)).url).toBeUndefined();
    await openPhase(depId, 'provisioning_infrastructure');

    const done = await operationReaches(key, opId, ['succeeded']);
    expect(done.progress.phase).toBe('ready');
    expect(done.ended_at).toMatch(ISO_MS);
    expect(done.ended_at >= done.started_at && done.started_at >= done.requested_at).toBe(true);
    const d = await deployment(key, depId);
    expect(d.status).toBe('ready');
    expect(done.result).toEqual({ url: d.url });
    expect(done.links).toEqual({ self: `/api/v1/operations/${opId}`, resource: `/api/v1/deployments/${d.id}` });
    expect(done.error).toBeUndefined();
  });
});

describe('DELETE /deployments/{id}', () => {
  it('destroys a ready deployment: destroying → destroyed, through destroying_infrastructure and destroying_db', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const del = await call('DELETE', `/deployments/${d.id}`, { key });
    expect(del.status).toBe(202);
    expect(del.body.data).toMatchObject({
      operation_id: expect.stringMatching(/^op_/),
      links: { operation: `/api/v1/operations/${del.body.data.operation_id}`, deployment: `/api/v1/deployments/${d.id}` },
    });
    expect(del.headers.location).toBe(`/api/v1/operations/${del.body.data.operation_id}`);
    expect(del.headers['retry-after']).toBe('2');
    expect((await deployment(key, d.id)).status).toBe('destroying');
    const op = await operationReaches(key, del.body.data.operation_id, ['succeeded']);
    expect(op).toMatchObject({ type: 'deployment.destroy', progress: { phase: 'destroyed' } });
    const gone = await deployment(key, d.id);
    expect(gone.status).toBe('destroyed');
    expect(gone.links.operation).toBe(`/api/v1/operations/${op.id}`);
    const list = await call('GET', '/deployments', { key });
    expect(list.body.data.items.map((x: { id: string }) => x.id)).toContain(d.id);
  });

  it('joins the destroy under way (no second one) and refuses a destroyed deployment with 409', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const first = await call('DELETE', `/deployments/${d.id}`, { key });
    const second = await call('DELETE', `/deployments/${d.id}`, { key });
    expect(second.status).toBe(202);
    expect(second.body.data.operation_id).toBe(first.body.data.operation_id);
    await operationReaches(key, first.body.data.operation_id, ['succeeded']);
    const third = await call('DELETE', `/deployments/${d.id}`, { key });
    expect(third.status).toBe(409);
    expect(third.body.error.code).toBe('DEPLOYMENT_ALREADY_DESTROYED');
    const destroys = await call('GET', `/operations?resource_id=${d.id}&type=deployment.destroy`, { key });
    expect(destroys.body.data.pagination.total).toBe(1);
  });

  it('while provisioning: cancels the create (ended_at, message) and starts one destroy', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key);
    const del = await call('DELETE', `/deployments/${created.body.data.deployment_id}`, { key });
    expect(del.status).toBe(202);
    const create = await operation(key, created.body.data.operation_id);
    expect(create.status).toBe('canceled');
    expect(create.ended_at).toMatch(ISO_MS);
    expect(create.progress.message).toMatch(/destroy/i);
    await operationReaches(key, del.body.data.operation_id, ['succeeded']);
    expect((await operation(key, created.body.data.operation_id)).status).toBe('canceled');
    expect((await deployment(key, created.body.data.deployment_id)).status).toBe('destroyed');
  });

  it("is 404 for an unknown or another organization's deployment", async () => {
    const a = await createKey();
    const b = await createKey();
    const created = await createDeployment(a.key);
    expect((await call('DELETE', `/deployments/${created.body.data.deployment_id}`, { key: b.key })).body.error.code).toBe(
      'DEPLOYMENT_NOT_FOUND',
    );
    expect((await call('DELETE', '/deployments/0d5f5b0e-0000-4000-8000-000000000000', { key: a.key })).status).toBe(404);
  });

  it('is allowed with deployments:delete alone, refused with deployments:read (403 naming deployments:write)', async () => {
    const owner = await createKey();
    const d = await createDeployment(owner.key);
    const reader = await createKey({ orgId: owner.record.org_id, scopes: ['deployments:read'] });
    const refused = await call('DELETE', `/deployments/${d.body.data.deployment_id}`, { key: reader.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('Required: deployments:write');
    const deleter = await createKey({ orgId: owner.record.org_id, scopes: ['deployments:delete'] });
    expect((await call('DELETE', `/deployments/${d.body.data.deployment_id}`, { key: deleter.key })).status).toBe(202);
  });
});

describe('DAG syncs and app users (decision 20)', () => {
  it('runs a dag_sync.trigger on a ready airflow deployment and leaves it ready', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const res = await call('POST', `/deployments/${d.id}/dag-syncs`, { key });
    expect(res.status).toBe(202);
    expect(res.headers.location).toBe(`/api/v1/operations/${res.body.data.operation_id}`);
    const op = await operationReaches(key, res.body.data.operation_id, ['succeeded']);
    expect(op).toMatchObject({ type: 'dag_sync.trigger', progress: { phase: 'synced' }, resource: { id: d.id } });
    const after = await deployment(key, d.id);
    expect(after.status).toBe('ready');
    expect(after.links.operation).toBe(`/api/v1/operations/${op.id}`);
  });

  it('accepts an empty JSON object as the body, and refuses other fields', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    expect((await call('POST', `/deployments/${d.id}/dag-syncs`, { key, body: {} })).status).toBe(202);
    expect((await call('POST', `/deployments/${d.id}/dag-syncs`, { key, body: { now: true } })).status).toBe(400);
  });

  it('refuses superset (400) and deployments that are not ready (409 DEPLOYMENT_NOT_READY)', async () => {
    const { key } = await createKey();
    const superset = await readyDeployment(key, { app_type: 'superset' });
    const bad = await call('POST', `/deployments/${superset.id}/dag-syncs`, { key });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
    const provisioning = await createDeployment(key);
    const notReady = await call('POST', `/deployments/${provisioning.body.data.deployment_id}/dag-syncs`, { key });
    expect(notReady.status).toBe(409);
    expect(notReady.body.error.code).toBe('DEPLOYMENT_NOT_READY');
    const user = await call('POST', `/deployments/${provisioning.body.data.deployment_id}/users`, {
      key,
      body: { username: 'ann', email: 'ann@example.com', role: 'viewer' },
    });
    expect(user.status).toBe(409);
    expect((await call('POST', '/deployments/00000000-0000-4000-8000-000000000000/dag-syncs', { key })).status).toBe(404);
  });

  it('provisions an app user with a valid body, and validates it', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    const res = await call('POST', `/deployments/${d.id}/users`, {
      key,
      body: { username: 'ann', email: 'ann@example.com', role: 'editor' },
    });
    expect(res.status).toBe(202);
    const op = await operationReaches(key, res.body.data.operation_id, ['succeeded']);
    expect(op).toMatchObject({ type: 'app_user.provision', progress: { phase: 'provisioned' } });
    const bad = await call('POST', `/deployments/${d.id}/users`, { key, body: { username: 'ann', email: 'nope', role: 'owner' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((x: { field: string }) => x.field).sort()).toEqual(['email', 'role']);
  });
});

describe('POST /operations/{id}/cancel (decision 22)', () => {
  it('cancels a running create: 200 with the canceled operation; the deployment is failed; DELETE cleans up', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key);
    const res = await call('POST', `/operations/${created.body.data.operation_id}/cancel`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: created.body.data.operation_id,
      status: 'canceled',
      ended_at: expect.stringMatching(ISO_MS),
    });
    const d = await deployment(key, created.body.data.deployment_id);
    expect(d.status).toBe('failed');
    const again = await call('POST', `/operations/${created.body.data.operation_id}/cancel`, { key });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('OPERATION_NOT_CANCELABLE');
    const del = await call('DELETE', `/deployments/${d.id}`, { key });
    await operationReaches(key, del.body.data.operation_id, ['succeeded']);
    expect((await deployment(key, d.id)).status).toBe('destroyed');
    expect((await operation(key, created.body.data.operation_id)).status).toBe('canceled');
  });

  it('cancels a DAG sync or a user provisioning and leaves the deployment ready', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const sync = await call('POST', `/deployments/${d.id}/dag-syncs`, { key });
    const res = await call('POST', `/operations/${sync.body.data.operation_id}/cancel`, { key });
    expect(res.body.data.status).toBe('canceled');
    expect((await deployment(key, d.id)).status).toBe('ready');
    const user = await call('POST', `/deployments/${d.id}/users`, {
      key,
      body: { username: 'ann', email: 'ann@example.com', role: 'admin' },
    });
    const canceled = await call('POST', `/operations/${user.body.data.operation_id}/cancel`, { key });
    expect(canceled.body.data).toMatchObject({ type: 'app_user.provision', status: 'canceled' });
    expect((await deployment(key, d.id)).status).toBe('ready');
  });

  it('refuses a destroy (409) and unknown ids (404 OPERATION_NOT_FOUND)', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const del = await call('DELETE', `/deployments/${d.id}`, { key });
    const res = await call('POST', `/operations/${del.body.data.operation_id}/cancel`, { key });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('OPERATION_NOT_CANCELABLE');
    const unknown = await call('POST', '/operations/op_00000000-0000-4000-8000-000000000000/cancel', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('OPERATION_NOT_FOUND');
  });

  it('replays a cancel made with an Idempotency-Key', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key);
    const path = `/operations/${created.body.data.operation_id}/cancel`;
    const first = await call('POST', path, { key, headers: { 'Idempotency-Key': 'c1' } });
    const again = await call('POST', path, { key, headers: { 'Idempotency-Key': 'c1' } });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
  });
});

describe('GET /operations', () => {
  it('filters by type, status and resource_id (bare or dep_), newest first, with totals', async () => {
    const { key } = await createKey();
    const a = await readyDeployment(key);
    const b = await readyDeployment(key);
    const sync = await call('POST', `/deployments/${a.id}/dag-syncs`, { key });
    await operationReaches(key, sync.body.data.operation_id, ['succeeded']);
    const all = await call('GET', '/operations', { key });
    expect(all.body.data.pagination.total).toBe(3);
    expect(all.body.data.items.map((o: { type: string }) => o.type)).toEqual([
      'dag_sync.trigger',
      'deployment.create',
      'deployment.create',
    ]);
    const times = all.body.data.items.map((o: { requested_at: string }) => o.requested_at);
    expect([...times].sort().reverse()).toEqual(times);

    const byType = await call('GET', '/operations?type=deployment.create', { key });
    expect(byType.body.data.items.map((o: { resource: { id: string } }) => o.resource.id)).toEqual([b.id, a.id]);
    for (const rid of [a.id, `dep_${a.id}`]) {
      const byRes = await call('GET', `/operations?resource_id=${rid}`, { key });
      expect(byRes.body.data.pagination.total).toBe(2);
      expect(byRes.body.data.items.map((o: { type: string }) => o.type)).toEqual(['dag_sync.trigger', 'deployment.create']);
    }
    const combined = await call('GET', `/operations?resource_id=${a.id}&type=dag_sync.trigger&status=succeeded`, { key });
    expect(combined.body.data.pagination.total).toBe(1);
    const byStatus = await call('GET', '/operations?status=succeeded&per_page=2&page=2', { key });
    expect(byStatus.body.data.pagination).toEqual({ page: 2, per_page: 2, total: 3, pages: 2 });
    expect(byStatus.body.data.items).toHaveLength(1);
    expect(byStatus.body.data.links.self).toBe('/api/v1/operations?status=succeeded&page=2&per_page=2');
    const running = await call('GET', '/operations?status=running', { key });
    expect(running.body.data.pagination.total).toBe(0);
    const unknownRes = await call('GET', `/operations?resource_id=${randomUUID()}`, { key });
    expect(unknownRes.body.data).toMatchObject({ items: [], pagination: { total: 0, pages: 0 } });
  });

  it.each(['status=done', 'type=deployment.upgrade', 'page=0', 'per_page=101', 'resource_id=nothing-here', 'resource_id=x%23KEYS'])(
    'refuses %s with 400 INVALID_REQUEST and details',
    async (q) => {
      const { key } = await createKey();
      const res = await call('GET', `/operations?${q}`, { key });
      expect(res.status).toBe(400);
      expect(res.body.error.details[0].field).toBe(q.split('=')[0]);
    },
  );

  it("keeps organizations apart: another organization's operation is 404 and absent from lists", async () => {
    const a = await createKey();
    const b = await createKey();
    const created = await createDeployment(a.key);
    const res = await call('GET', `/operations/${created.body.data.operation_id}`, { key: b.key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('OPERATION_NOT_FOUND');
    expect((await call('GET', '/operations', { key: b.key })).body.data.pagination.total).toBe(0);
    expect((await call('GET', '/operations/not-an-op', { key: a.key })).status).toBe(404);
  });

  it('needs operations:read', async () => {
    const { key } = await createKey({ scopes: ['deployments:read'] });
    const res = await call('GET', '/operations', { key });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toContain('Required: operations:read');
  });
});
