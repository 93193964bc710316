/**
 * Fault injection with real parts: the workflow cannot start because the state machine
 * this process is configured with does not exist on the (real, local) endpoint.
 */

import { createDeployment, deployment, operation } from '../helpers/api.js';
import { call, createKey } from '../helpers/fixtures.js';

process.env.STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:missing';

describe('when the workflow cannot be started', () => {
  it('ends the operation failed (not stuck queued) with its event, fails the deployment, and answers 500 with the operation id', async () => {
    const { key } = await createKey();
    const res = await createDeployment(key, { app_type: 'airflow', name: 'doomed' }, { 'Idempotency-Key': 'try-1' });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_ERROR');
    const opId = res.body.error.operation_id;
    expect(opId).toMatch(/^op_/);
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts|stack/i);
    const op = await operation(key, opId);
    expect(op.status).toBe('failed');
    expect(op.error.code).toBe('WORKFLOW_START_FAILED');
    expect(op.ended_at).toBeDefined();
    expect((await deployment(key, op.resource.id)).status).toBe('failed');
    // The failure is an event like any other change (decision 37): the client watching events sees it.
    const events = (await call('GET', '/events?per_page=100', { key })).body.data.items.reverse();
    expect(events.map((e: { sequence: number }) => e.sequence)).toEqual([1, 2, 3, 4]);
    expect(events.map((e: { type: string; data: { object: { status: string } } }) => `${e.type} ${e.data.object.status}`)).toEqual([
      'deployment.created provisioning',
      'operation.created queued',
      'operation.updated failed',
      'deployment.updated failed',
    ]);
    expect(events[2].data.object).toEqual(op);
    expect(events[2].data.previous).toMatchObject({ status: 'queued' });
    // The idempotency claim is released: a retry is attempted again rather than replaying a 202 for failed work.
    const retry = await createDeployment(key, { app_type: 'airflow', name: 'doomed' }, { 'Idempotency-Key': 'try-1' });
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(retry.body.error.code).toBe('DEPLOYMENT_NAME_TAKEN');
    const ops = await call('GET', '/operations?status=queued', { key });
    expect(ops.body.data.pagination.total).toBe(0);
  });
});
