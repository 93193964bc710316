/**
 * DynamoDB faults (throttling, 500s, dropped connections) injected through an SDK
 * middleware on the process's one client (test/helpers/inject-faults.ts); everything else
 * is real: DynamoDB Local, the HTTP handlers through the local gateway, and the ASL
 * workflow whose steps share the client. The SDK's own retries absorb short bursts; a
 * fault that outlasts them is retried by the state machine in a workflow step, and is a
 * generic 500 that wrote nothing in a request (decision 33). Operations end right, with
 * the same events, in the same order, as without faults.
 */
import { ddb } from '../../functions/adapters/dynamo/client.js';
import { stepFunctions } from '../helpers/after-env.js';
import { createDeployment, operationReaches } from '../helpers/api.js';
import { type CallResult, call, createKey } from '../helpers/fixtures.js';
import { ALL_FAULTS, type Injection, injectFaults } from '../helpers/inject-faults.js';

// The tests poll faster than a client may.
process.env.RATE_LIMIT_PER_MINUTE = '1000';

/** A run's choices repeat with the same seed (FAULT_SEED), like FUZZ_SEED. */
const SEED = Number(process.env.FAULT_SEED ?? 16);

/** The events of a create then a destroy, oldest first, as events.test.ts tells them without faults. */
const STORY = [
  'deployment.created dep provisioning',
  'operation.created op queued:queued',
  'operation.updated op running:provisioning_db',
  'operation.updated op running:provisioning_infrastructure',
  'operation.updated op succeeded:ready',
  'deployment.updated dep ready',
  'operation.created op queued:queued',
  'deployment.updated dep destroying',
  'operation.updated op running:destroying_infrastructure',
  'operation.updated op running:destroying_db',
  'operation.updated op succeeded:destroyed',
  'deployment.updated dep destroyed',
];

let injection: Injection | undefined;
afterEach(() => injection?.off());

function expectAnswer(res: CallResult, status: number) {
  expect({ status: res.status, error: res.body?.error }).toEqual({ status, error: undefined });
}

/** The organization's events, oldest first, as `<type> <dep|op> <status or status:phase>`, after checking they are numbered 1…n. */
async function storyOf(key: string, deploymentId: string): Promise<string[]> {
  const res = await call('GET', '/events?per_page=100', { key });
  expectAnswer(res, 200);
  const events = [...res.body.data.items].reverse() as { sequence: number; type: string; data: { object: any } }[];
  expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  return events.map(({ type, data: { object } }) =>
    object.id === deploymentId ? `${type} dep ${object.status}` : `${type} op ${object.status}:${object.progress.phase}`,
  );
}

/** The records at the end: both operations succeeded, the deployment destroyed, its last operation the destroy. */
async function expectDestroyed(key: string, deploymentId: string, createOp: string, destroyOp: string) {
  const [created, destroyed, dep] = await Promise.all([
    call('GET', `/operations/${createOp}`, { key }),
    call('GET', `/operations/${destroyOp}`, { key }),
    call('GET', `/deployments/${deploymentId}`, { key }),
  ]);
  for (const res of [created, destroyed, dep]) expectAnswer(res, 200);
  expect(created.body.data).toMatchObject({
    status: 'succeeded',
    progress: { phase: 'ready' },
    result: { url: `https://airflow.${deploymentId}.apps.test.example` },
  });
  expect(destroyed.body.data).toMatchObject({ status: 'succeeded', progress: { phase: 'destroyed' } });
  for (const op of [created.body.data, destroyed.body.data]) expect(op.ended_at).toEqual(expect.any(String));
  expect(dep.body.data).toMatchObject({ status: 'destroyed', links: { operation: `/api/v1/operations/${destroyOp}` } });
  expect(dep.body.data.url).toBeUndefined();
  const active = await call('GET', `/operations?resource_id=${deploymentId}&status=running`, { key });
  expect(active.body.data.pagination.total).toBe(0);
}

describe('DynamoDB throttling and transient errors', () => {
  it('every handler answers as it would without faults when the SDK retries absorb them, and the workflows end right', async () => {
    const orgs = await Promise.all([createKey(), createKey(), createKey()]);
    // A third of the calls fail once. The SDK retries them (up to 4 attempts), drawing on its
    // client's retry quota (500 tokens: 5 a throttling retry, 10 a 5xx or reset one, given back
    // when the retry succeeds), which this rate never exhausts; past it the SDK stops retrying
    // and the fault reaches the caller, as in the last test.
    injection = injectFaults(ddb, { share: 0.35, seed: SEED, attempts: 1 });
    await Promise.all(
      orgs.map(async ({ key }) => {
        const created = await createDeployment(key);
        expectAnswer(created, 202);
        const { deployment_id: depId, operation_id: createOp } = created.body.data;
        expectAnswer(await call('GET', `/deployments/${depId}`, { key }), 200);
        const list = await call('GET', '/deployments', { key });
        expectAnswer(list, 200);
        expect(list.body.data.items.map((d: { id: string }) => d.id)).toEqual([depId]);
        expectAnswer(await call('GET', `/operations?resource_id=${depId}`, { key }), 200);
        await operationReaches(key, createOp, ['succeeded', 'failed', 'canceled']);
        const deleted = await call('DELETE', `/deployments/${depId}`, { key });
        expectAnswer(deleted, 202);
        await operationReaches(key, deleted.body.data.operation_id, ['succeeded', 'failed', 'canceled']);
        await expectDestroyed(key, depId, createOp, deleted.body.data.operation_id);
        expect(await storyOf(key, depId)).toEqual(STORY);
      }),
    );
    injection.off();
    // Every kind of fault was met, on reads and writes alike, and none reached a caller.
    expect(new Set(injection.faults.map((f) => f.kind))).toEqual(new Set(ALL_FAULTS));
    const commands = new Set(injection.faults.map((f) => f.command));
    for (const c of ['GetItemCommand', 'QueryCommand', 'UpdateItemCommand', 'TransactWriteItemsCommand']) expect(commands).toContain(c);
    expect(injection.faults.length).toBeGreaterThan(50);
    expect(injection.surfaced).toBe(0);
  }, 180_000);

  it('a workflow step whose fault outlasts the SDK retries is retried by the state machine: create and destroy still succeed', async () => {
    const orgs = await Promise.all([createKey(), createKey()]);
    const runs = await Promise.all(
      orgs.map(async ({ key }) => {
        const created = await createDeployment(key);
        expectAnswer(created, 202);
        return { key, depId: created.body.data.deployment_id as string, createOp: created.body.data.operation_id as string };
      }),
    );
    // Every 6th hit call fails all of its attempts: the step fails, with TransientAwsError.
    injection = injectFaults(ddb, { share: 0.25, seed: SEED, attempts: 1, surfaceEvery: 6 });
    await stepFunctions.settled();
    injection.off();
    const surfacedInCreates = injection.surfaced;
    const destroys = await Promise.all(
      runs.map(async ({ key, depId }) => {
        const deleted = await call('DELETE', `/deployments/${depId}`, { key });
        expectAnswer(deleted, 202);
        return deleted.body.data.operation_id as string;
      }),
    );
    const again = injectFaults(ddb, { share: 0.25, seed: SEED + 1, attempts: 1, surfaceEvery: 6 });
    injection = again;
    await stepFunctions.settled();
    again.off();
    for (const [i, { key, depId, createOp }] of runs.entries()) {
      await expectDestroyed(key, depId, createOp, destroys[i]!);
      expect(await storyOf(key, depId)).toEqual(STORY);
    }
    // Steps did fail with a fault that outlasted the SDK (and were retried, or the operations would have failed).
    expect(surfacedInCreates).toBeGreaterThan(0);
    expect(again.surfaced).toBeGreaterThan(0);
  }, 180_000);

  it('a fault that outlasts the SDK retries in a request is a generic 500 that wrote nothing, and the retry succeeds', async () => {
    const { key } = await createKey();
    injection = injectFaults(ddb, {
      commands: ['TransactWriteItemsCommand'],
      share: 1,
      seed: SEED,
      attempts: 1,
      surfaceEvery: 1,
      kinds: ['ProvisionedThroughputExceededException'],
    });
    const refused = await createDeployment(key, { app_type: 'superset', name: 'throttled' }, { 'Idempotency-Key': 'throttled-1' });
    injection.off();
    expect(refused.status).toBe(500);
    expect(refused.body.error).toEqual({
      code: 'INTERNAL_ERROR',
      message: expect.any(String),
      request_id: refused.headers['x-request-id'],
    });
    expect(JSON.stringify(refused.body)).not.toMatch(/throughput|dynamo|injected|stack|\.ts\b/i);
    expect(injection.surfaced).toBe(1);
    // Nothing half-written: no deployment, no operation, no event.
    for (const path of ['/deployments', '/operations', '/events']) {
      expect({ path, total: (await call('GET', path, { key })).body.data.pagination.total }).toEqual({ path, total: 0 });
    }
    // The Idempotency-Key was given back: the same request now does the work.
    const retried = await createDeployment(key, { app_type: 'superset', name: 'throttled' }, { 'Idempotency-Key': 'throttled-1' });
    expectAnswer(retried, 202);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    await operationReaches(key, retried.body.data.operation_id, ['succeeded']);

    // A read whose fault outlasts the retries: the same generic 500, and the next read answers.
    const depId = retried.body.data.deployment_id;
    injection = injectFaults(ddb, {
      commands: ['GetItemCommand'],
      share: 1,
      seed: SEED,
      attempts: 1,
      surfaceEvery: 1,
      kinds: ['ECONNRESET'],
    });
    const failedRead = await call('GET', `/deployments/${depId}`, { key });
    injection.off();
    expect(failedRead.status).toBe(500);
    expect(failedRead.body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(failedRead.body)).not.toMatch(/ECONNRESET|socket|stack/i);
    expect((await call('GET', `/deployments/${depId}`, { key })).body.data).toMatchObject({ id: depId, status: 'ready' });
  }, 120_000);
});
