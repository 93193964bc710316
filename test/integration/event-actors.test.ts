/**
 * Who made each change (decision 46), through GET /events on DynamoDB Local and the real
 * ASL: a request's changes carry its key, those to other records included (the create or
 * update a DELETE cancels, the deployment a cancel fails); the workflow's carry the system;
 * a dashboard user's carry the user; an event stored without an actor reads as the
 * system's (decision 140).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Actor } from '../../contract/schemas.js';
import { eventKey } from '../../contract/table/entities.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { destroyDeployment } from '../../functions/app/deployment-commands.js';
import { userActor } from '../../functions/core/events.js';
import type { WorkPhase } from '../../functions/core/platform.js';
import { createDeployment, operationReaches, readyDeployment } from '../helpers/api.js';
import { platformOf } from '../helpers/call-platform.js';
import { call, createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

// These tests poll faster than a client may.
process.env.RATE_LIMIT_PER_MINUTE = '1000';

/** The names of the deployments whose phases wait for the test to open them; the others' phases end at once. */
const held = new Set<string>();
const gates = new Map<string, () => void>();
const platform = platformOf(
  (phase) => async (t) => (held.has(t.name) ? new Promise<void>((resolve) => gates.set(`${t.deploymentId}:${phase}`, resolve)) : undefined),
);
const releaseAll = () => {
  held.clear();
  for (const open of gates.values()) open();
};
workflowsOn(platform, { retryIntervalMs: 5, release: releaseAll });

/** Waits until the workflow of a held deployment is in `phase`. */
const inPhase = (deploymentId: string, phase: WorkPhase) =>
  eventually(async () => gates.has(`${deploymentId}:${phase}`), `the workflow to reach ${phase}`);

/** Lets a held deployment's workflows run on. */
function release(name: string, deploymentId: string) {
  held.delete(name);
  for (const [k, open] of gates) if (k.startsWith(`${deploymentId}:`)) open();
}

interface Listed {
  sequence: number;
  type: string;
  actor: Actor;
  data: { object: { id: string; status: string } };
}

/** The organization's events, oldest first. */
async function story(key: string): Promise<Listed[]> {
  const res = await call('GET', '/events?per_page=100', { key });
  expect(res.status).toBe(200);
  return (res.body.data.items as Listed[]).reverse();
}

const SYSTEM: Actor = { type: 'system' };
const byKey = (id: string): Actor => ({ type: 'api_key', id });

describe('actor on events (decision 46)', () => {
  it('a create is its key’s, the phases the system’s, and a DELETE of another key cancels the create as that key', async () => {
    const creator = await createKey({ name: 'creator' });
    const deleter = await createKey({ orgId: creator.record.org_id, name: 'deleter' });
    held.add('held-create');
    const created = await createDeployment(creator.key, { app_type: 'airflow', name: 'held-create' });
    const { deployment_id: depId, operation_id: createOp } = created.body.data;
    await inPhase(depId, 'provisioning_db');
    const del = await call('DELETE', `/deployments/${depId}`, { key: deleter.key });
    expect(del.status).toBe(202);
    release('held-create', depId);
    await operationReaches(creator.key, del.body.data.operation_id, ['succeeded']);

    const events = await story(creator.key);
    const shown = events.map((e) => [e.type, e.data.object.id === depId ? 'dep' : e.data.object.id, e.actor]);
    expect(shown.slice(0, 6)).toEqual([
      ['deployment.created', 'dep', byKey(creator.record.id)],
      ['operation.created', createOp, byKey(creator.record.id)],
      ['operation.updated', createOp, SYSTEM], // running, provisioning_db
      ['operation.updated', createOp, byKey(deleter.record.id)], // canceled by the DELETE
      ['operation.created', del.body.data.operation_id, byKey(deleter.record.id)],
      ['deployment.updated', 'dep', byKey(deleter.record.id)], // destroying
    ]);
    expect(events[3]!.data.object.status).toBe('canceled');
    // The destroy's phases and its end, and the deployment destroyed: the workflow's.
    expect(events.length).toBeGreaterThan(6);
    for (const e of events.slice(6)) expect(e.actor).toEqual(SYSTEM);
    expect(events.at(-1)!.data.object).toMatchObject({ id: depId, status: 'destroyed' });
    // The id is the one GET /key shows the deleting key.
    expect((await call('GET', '/key', { key: deleter.key })).body.data.id).toBe(deleter.record.id);
  }, 60_000);

  it('a cancel is its key’s: the operation canceled and the deployment it leaves failed', async () => {
    const creator = await createKey();
    const canceler = await createKey({ orgId: creator.record.org_id, name: 'canceler' });
    held.add('held-cancel');
    const created = await createDeployment(creator.key, { app_type: 'superset', name: 'held-cancel' });
    const { deployment_id: depId, operation_id: createOp } = created.body.data;
    await inPhase(depId, 'provisioning_db');
    const canceled = await call('POST', `/operations/${createOp}/cancel`, { key: canceler.key, body: {} });
    expect(canceled.status).toBe(200);
    release('held-cancel', depId);

    const events = await story(creator.key);
    const last = events.slice(-2);
    expect(last.map((e) => [e.type, e.data.object.id, e.data.object.status, e.actor])).toEqual([
      ['operation.updated', createOp, 'canceled', byKey(canceler.record.id)],
      ['deployment.updated', depId, 'failed', byKey(canceler.record.id)],
    ]);
  }, 60_000);

  it('an update is its key’s; a DELETE that cancels it cancels it as the deleting key', async () => {
    const owner = await createKey();
    const deleter = await createKey({ orgId: owner.record.org_id, name: 'deleter' });
    const d = await readyDeployment(owner.key, { app_type: 'airflow', name: 'held-update' });
    held.add('held-update');
    const patched = await call('PATCH', `/deployments/${d.id}`, { key: owner.key, body: { config: { size: 'large' } } });
    expect(patched.status).toBe(202);
    const updateOp: string = patched.body.data.operation_id;
    await inPhase(d.id, 'applying_config');
    const del = await call('DELETE', `/deployments/${d.id}`, { key: deleter.key });
    expect(del.status).toBe(202);
    release('held-update', d.id);
    await operationReaches(owner.key, del.body.data.operation_id, ['succeeded']);

    const ofUpdate = (await story(owner.key)).filter((e) => e.data.object.id === updateOp);
    expect(ofUpdate.map((e) => [e.type, e.data.object.status, e.actor])).toEqual([
      ['operation.created', 'queued', byKey(owner.record.id)],
      ['operation.updated', 'running', SYSTEM], // applying_config
      ['operation.updated', 'canceled', byKey(deleter.record.id)],
    ]);
  }, 60_000);

  it('a dashboard user’s change carries the user; an event stored without an actor reads as the system’s', async () => {
    const { key, record } = await createKey();
    const d = await readyDeployment(key, { app_type: 'superset' });
    // The commands take the actor: a dashboard route passes the signed-in user.
    const started = await destroyDeployment(record.org_id, d.id, new Date(), userActor('user-sub-1'));
    await operationReaches(key, started.operationId, ['succeeded']);
    const events = await story(key);
    const destroyCreated = events.find((e) => e.type === 'operation.created' && e.data.object.id === started.operationId)!;
    expect(destroyCreated.actor).toEqual({ type: 'user', id: 'user-sub-1' });

    // An event of before decision 46: the attribute is absent.
    await ddb.send(new UpdateCommand({ TableName: tableName(), Key: eventKey(record.org_id, 1), UpdateExpression: 'REMOVE actor' }));
    const first = (await call('GET', `/events?resource_id=${d.id}&type=deployment.created`, { key })).body.data.items[0];
    expect(first).toMatchObject({ sequence: 1, actor: SYSTEM });
  }, 60_000);
});
