/**
 * GET /operations/{id}/wait (decision 36), through the local gateway and the real
 * handler, with workflows whose phases wait for the test to let them go.
 */
import { listUsage } from '../../functions/adapters/dynamo/usage-store.js';
import { createDeployment, operation } from '../helpers/api.js';
import { platformOf } from '../helpers/call-platform.js';
import { call, createKey } from '../helpers/fixtures.js';
import { localApi } from '../helpers/local-api.js';
import { eventually } from '../helpers/wait.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

// Each phase of this file's workflows waits for `release(<deployment id>:<phase>)`, until the file ends.
const gates = new Map<string, () => void>();
let ending = false;
const release = (key: string) => gates.get(key)?.();
workflowsOn(
  platformOf(
    (phase) => (t) => (ending ? Promise.resolve() : new Promise<void>((resolve) => gates.set(`${t.deploymentId}:${phase}`, resolve))),
  ),
  {
    retryIntervalMs: 5,
    release: () => {
      ending = true;
      for (const open of gates.values()) open();
    },
  },
);

async function runningCreate() {
  const { key, record } = await createKey();
  const created = await createDeployment(key);
  const { operation_id: opId, deployment_id: depId } = created.body.data;
  await eventually(async () => gates.has(`${depId}:provisioning_db`), 'the first phase');
  return { key, record, opId, depId };
}

describe('GET /operations/{id}/wait', () => {
  it('answers when the phase it waits on ends, with the record GET /operations/{id} then shows', async () => {
    const { key, opId, depId } = await runningCreate();
    const waiting = call('GET', `/operations/${opId}/wait?phase=provisioning_db`, { key });
    release(`${depId}:provisioning_db`);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(res.body.data.progress.phase).toBe('provisioning_infrastructure');
    expect(res.body.data).toEqual(await operation(key, opId));
  });

  it('answers when the operation ends, without phase; and at once when that has already happened', async () => {
    const { key, opId, depId } = await runningCreate();
    const waiting = call('GET', `/operations/${opId}/wait`, { key });
    release(`${depId}:provisioning_db`);
    await eventually(async () => gates.has(`${depId}:provisioning_infrastructure`), 'the second phase');
    release(`${depId}:provisioning_infrastructure`);
    const done = await waiting;
    expect(done.body.data).toMatchObject({ status: 'succeeded', progress: { phase: 'ready' } });
    const again = await call('GET', `/operations/${opId}/wait?phase=ready&timeout=20`, { key });
    expect(again.body.data).toEqual(done.body.data);
    const otherPhase = await call('GET', `/operations/${opId}/wait?phase=provisioning_db`, { key });
    expect(otherPhase.body.data.status).toBe('succeeded');
  });

  it('after timeout seconds answers with the record as it is, still in its phase', async () => {
    const { key, opId } = await runningCreate();
    const res = await call('GET', `/operations/${opId}/wait?phase=provisioning_db&timeout=1`, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'running', progress: { phase: 'provisioning_db' } });
  });

  it('counts as one request for the limits and the usage log', async () => {
    const { key, record, opId } = await runningCreate();
    const before = Number((await call('GET', `/operations/${opId}`, { key })).headers['x-ratelimit-remaining']);
    const res = await call('GET', `/operations/${opId}/wait?phase=provisioning_db&timeout=1`, { key });
    expect(Number(res.headers['x-ratelimit-remaining'])).toBe(before - 1);
    const waits = (await listUsage(record.id, 50)).filter((e) => e.route === '/api/v1/operations/{operation_id}/wait');
    expect(waits).toEqual([expect.objectContaining({ method: 'GET', status: 200 })]);
  });

  it.each([
    ['timeout=0', 'timeout'],
    ['timeout=21', 'timeout'],
    ['timeout=1.5', 'timeout'],
    ['timeout=soon', 'timeout'],
    ['phase=almost_done', 'phase'],
    ['phase=', 'phase'],
  ])('refuses %s with 400 INVALID_REQUEST naming the parameter', async (query, field) => {
    const { key, opId } = await runningCreate();
    const res = await call('GET', `/operations/${opId}/wait?${query}`, { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
  });

  it("answers 404 OPERATION_NOT_FOUND for an unknown id or another organization's operation", async () => {
    const { opId } = await runningCreate();
    const stranger = await createKey();
    for (const id of [opId, 'op_00000000-0000-4000-8000-000000000000', 'nope']) {
      const res = await call('GET', `/operations/${id}/wait?timeout=1`, { key: stranger.key });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('OPERATION_NOT_FOUND');
    }
  });
});

describe('GET /operations/{id}/wait without timeout, over HTTP through the local server', () => {
  const local = localApi();

  // The local Lambda context has the function's own timeout (infra/function-limits.ts),
  // so middy does not cut the 20 s wait off at the 10 s every other endpoint gets.
  it('waits the default 20 seconds, then answers 200 with the record still in its phase', async () => {
    const { key, opId } = await runningCreate();
    const started = Date.now();
    const res = await fetch(`${local.baseUrl}/operations/${opId}/wait`, { headers: { 'X-API-Key': key } });
    const seconds = (Date.now() - started) / 1000;
    expect({ status: res.status, body: await res.json() }).toMatchObject({
      status: 200,
      body: { data: { id: opId, status: 'running', progress: { phase: 'provisioning_db' } } },
    });
    expect(seconds).toBeGreaterThanOrEqual(19.5);
    expect(seconds).toBeLessThan(25);
  }, 40_000);
});
