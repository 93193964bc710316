/**
 * The races of docs/testing.md's "Reliability" not already held elsewhere (idempotent cancels in
 * security-review, the creation quota, 200 writes on one organization in contention, the
 * burst at the default limit in rate-limits), each through the real handlers and
 * DynamoDB Local, with requests from several keys of one organization at once.
 */

import { createDeployment, operation, operationReaches, readyDeployment } from '../helpers/api.js';
import { platformOf } from '../helpers/call-platform.js';
import { type CallResult, call, createKey, createKeys, newOrgId } from '../helpers/fixtures.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

process.env.RATE_LIMIT_PER_MINUTE = '10000';
process.env.CREATE_LIMIT_PER_HOUR = '1000';

/** Deployments whose last create phase waits until the test lets it go; the others run at once. */
const gates = new Map<string, { reached: () => void; reachedP: Promise<void>; release: () => void; released: Promise<void> }>();
function gate(deploymentId: string) {
  let reached!: () => void;
  let release!: () => void;
  const reachedP = new Promise<void>((r) => (reached = r));
  const released = new Promise<void>((r) => (release = r));
  const g = { reached, reachedP, release, released };
  gates.set(deploymentId, g);
  return g;
}
const engine = workflowsOn(
  platformOf((phase) => async (target) => {
    const g = gates.get(target.deploymentId);
    if (g && phase === 'provisioning_infrastructure') {
      g.reached();
      await g.released;
    }
  }),
  {
    retryIntervalMs: 5,
    release: () => {
      for (const g of gates.values()) g.release();
    },
  },
);

/** Keys of one organization: each request of a burst comes with the next one, so no key's own limit interferes. */
async function keysOf(n: number, orgId = newOrgId()) {
  return (await createKeys(n, orgId)).map((k) => k.key);
}

const statusesOf = (answers: CallResult[]) => answers.map((a) => `${a.status} ${a.body.error?.code ?? ''}`.trim());

describe('races', () => {
  it('50 concurrent POSTs with one Idempotency-Key make one deployment; every answer is its 202', async () => {
    const keys = await keysOf(50);
    const answers = await Promise.all(
      keys.map((key) => createDeployment(key, { app_type: 'airflow', name: 'idem-race' }, { 'Idempotency-Key': 'one-create' })),
    );
    expect(statusesOf(answers)).toEqual(Array(50).fill('202'));
    expect(new Set(answers.map((a) => a.body.data.deployment_id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(49);
    const listed = await call('GET', '/deployments', { key: keys[0]! });
    expect(listed.body.data.pagination.total).toBe(1);
    expect((await call('GET', '/operations', { key: keys[0]! })).body.data.pagination.total).toBe(1);
  });

  it('20 concurrent DELETEs of one deployment make one destroy', async () => {
    const keys = await keysOf(20);
    const d = await readyDeployment(keys[0]!);
    const answers = await Promise.all(keys.map((key) => call('DELETE', `/deployments/${d.id}`, { key })));
    // Each joins the one destroy (202), or was refused whole for contention (429 ORGANIZATION_BUSY).
    expect(statusesOf(answers).filter((s) => s !== '202' && s !== '429 ORGANIZATION_BUSY')).toEqual([]);
    const accepted = answers.filter((a) => a.status === 202);
    expect(new Set(accepted.map((a) => a.body.data.operation_id)).size).toBe(1);
    const destroys = await call('GET', `/operations?resource_id=${d.id}&type=deployment.destroy`, { key: keys[0]! });
    expect(destroys.body.data.pagination.total).toBe(1);
    await operationReaches(keys[0]!, accepted[0]!.body.data.operation_id, ['succeeded']);
  });

  it('20 concurrent creates with one name make one deployment, and 409 DEPLOYMENT_NAME_TAKEN for the rest', async () => {
    const keys = await keysOf(20);
    const answers = await Promise.all(keys.map((key) => createDeployment(key, { app_type: 'superset', name: 'one-name' })));
    const statuses = statusesOf(answers);
    expect(statuses.filter((s) => s === '202')).toHaveLength(1);
    expect(statuses.filter((s) => s !== '202' && s !== '409 DEPLOYMENT_NAME_TAKEN' && s !== '429 ORGANIZATION_BUSY')).toEqual([]);
    const listed = await call('GET', '/deployments', { key: keys[0]! });
    expect(listed.body.data.items.map((x: { name: string }) => x.name)).toEqual(['one-name']);
  });

  it('200 concurrent requests on one key with a limit of 20 a minute let exactly 20 through', async () => {
    const previous = process.env.RATE_LIMIT_PER_MINUTE;
    let answers: { statusCode: number; body: string }[] | undefined;
    // The limit is configuration, read once per process: a fresh copy of the handler stack reads 20.
    await jest.isolateModulesAsync(async () => {
      process.env.RATE_LIMIT_PER_MINUTE = '20';
      const { invokeGateway } = await import('../../local/gateway.js');
      const { ddb } = await import('../../functions/adapters/dynamo/client.js');
      // The fresh modules hold ports of their own: plug the local stand-ins into them, as after-env.ts does.
      const standIns = await import('../../local/stand-ins.js');
      standIns.useStandIns(standIns.localStandIns(process.env.WEBHOOK_SECRET_KEY!));
      // A burst that straddles a clock minute legitimately lets more through: then once more, with a new key.
      for (let attempt = 0; attempt < 2 && !answers; attempt++) {
        const { key } = await createKey();
        const get = () => invokeGateway({ method: 'GET', url: '/api/v1/key', rawHeaders: ['X-API-Key', key], body: Buffer.alloc(0) });
        const minute = Math.floor(Date.now() / 60_000);
        const burst = await Promise.all(Array.from({ length: 200 }, get));
        if (Math.floor(Date.now() / 60_000) === minute) answers = burst;
      }
      ddb.destroy();
    });
    process.env.RATE_LIMIT_PER_MINUTE = previous;
    if (!answers) throw new Error('two bursts in a row straddled a clock minute');
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(20);
    expect(answers.filter((a) => a.statusCode === 429 && JSON.parse(a.body).error.code === 'RATE_LIMIT_EXCEEDED')).toHaveLength(180);
  });

  it('a cancel racing the phase that ends a create leaves one consistent outcome, its events in order', async () => {
    const [key] = await keysOf(1);
    const outcomes: string[] = [];
    for (let round = 0; round < 4; round++) {
      const created = await createDeployment(key!, { app_type: 'airflow' });
      const { deployment_id: depId, operation_id: opId } = created.body.data;
      const g = gate(depId);
      await g.reachedP;
      // The last phase ends just as the cancel arrives: which wins may differ, the outcome may not be half of each.
      g.release();
      const cancel = await call('POST', `/operations/${opId}/cancel`, { key: key! });
      const op = await operationReaches(key!, opId, ['succeeded', 'canceled']);
      const dep = (await call('GET', `/deployments/${depId}`, { key: key! })).body.data;
      if (cancel.status === 200) {
        expect([op.status, dep.status]).toEqual(['canceled', 'failed']);
      } else {
        expect([cancel.body.error.code, op.status, dep.status]).toEqual(['OPERATION_NOT_CANCELABLE', 'succeeded', 'ready']);
      }
      outcomes.push(op.status);
      // It stays that way once the workflow is over: the losing side wrote nothing after.
      await engine.settled();
      expect((await operation(key!, opId)).status).toBe(op.status);
      // The operation's events: one created, then each change, in sequence order, ending in the outcome.
      const events = (await call('GET', `/events?resource_id=${opId}&per_page=100`, { key: key! })).body.data.items.reverse();
      expect(events[0].type).toBe('operation.created');
      const sequences = events.map((e: { sequence: number }) => e.sequence);
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      expect(events.at(-1).data.object.status).toBe(op.status);
      expect(
        events.filter((e: { data: { object: { status: string } } }) => ['succeeded', 'canceled'].includes(e.data.object.status)),
      ).toHaveLength(1);
    }
    expect(outcomes).toHaveLength(4);
  });
});
