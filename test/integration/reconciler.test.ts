/**
 * The reconciler looks at every active operation in the table, so this suite has a
 * table of its own: it must not end other suites' operations that are in flight.
 */
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { getOperation } from '../../functions/adapters/dynamo/operation-reads.js';
import { createDeployment as create } from '../../functions/app/create-deployment.js';
import { reconcileOperations } from '../../functions/app/workflow-steps.js';
import { keyActor } from '../../functions/core/events.js';
import { runAsFunction } from '../../local/current-function.js';
import { ensureTable } from '../../local/dynamodb-local.js';
import { platformOf } from '../helpers/call-platform.js';
import { createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

/** The scheduled reconciler's code, run as its function (its requests judged against its grants). */
const reconcile = (options: Parameters<typeof reconcileOperations>[0]) =>
  runAsFunction('reconcile-operations', () => reconcileOperations(options));

process.env.TABLE_NAME = 'deployments-reconciler-test';

// Workflows stay in their first phase until the end of the suite.
let release!: () => void;
const gate = new Promise<void>((r) => (release = r));
const held = platformOf(() => () => gate);
const stepFunctions = workflowsOn(held, { release });

beforeAll(async () => {
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, 'deployments-reconciler-test');
});

const LIMITS = { perHour: 1000, perMinute: 100, createsPerHour: 1000 };

async function newCreate() {
  const { record } = await createKey();
  const res = await create({
    orgId: record.org_id,
    body: { app_type: 'airflow' },
    limits: LIMITS,
    now: new Date(),
    actor: keyActor(record.id),
  });
  return { orgId: record.org_id, opId: res.operationId, deploymentId: res.deploymentId };
}

describe('reconcileOperations', () => {
  it('leaves young operations and running workflows alone, stops and fails overdue ones, and ends orphans', async () => {
    const running = await newCreate();
    await eventually(async () => (await getOperation(running.orgId, running.opId, true))?.job, 'the first phase to start its job');
    // Young: inside the grace period, nothing is touched even if its execution were missing.
    expect(await reconcile({ graceSeconds: 60, phaseTimeoutSeconds: 3600 })).toEqual({ ended: [], resumed: [] });
    // Old but its workflow is running and within the timeout: left alone.
    const later = new Date(Date.now() + 120_000);
    expect(await reconcile({ now: later, graceSeconds: 60, phaseTimeoutSeconds: 3600 })).toEqual({ ended: [], resumed: [] });
    expect((await getOperation(running.orgId, running.opId, true))!.status).toBe('running');

    // Past the timeout: stopped and failed, and its deployment with it.
    const overdue = new Date(Date.now() + 7_200_000);
    expect(await reconcile({ now: overdue, graceSeconds: 60, phaseTimeoutSeconds: 3600, platform: held })).toEqual({
      ended: [running.opId],
      resumed: [],
    });
    expect((await getOperation(running.orgId, running.opId, true))!).toMatchObject({
      status: 'failed',
      error: { code: 'OPERATION_TIMED_OUT' },
    });
    expect((await getDeployment(running.orgId, running.deploymentId, true))!.status).toBe('failed');
    expect(
      stepFunctions.describe({ executionArn: `arn:aws:states:us-east-1:000000000000:execution:operation:${running.opId}` }).status,
    ).toBe('ABORTED');
    // Its job on the platform is stopped too.
    expect(held.canceled).toEqual([`${running.opId}/provisioning_db`]);

    // An orphan: its workflow stopped without recording an end.
    const orphan = await newCreate();
    stepFunctions.stop({ executionArn: `arn:aws:states:us-east-1:000000000000:execution:operation:${orphan.opId}` });
    expect(await reconcile({ now: later, graceSeconds: 60, phaseTimeoutSeconds: 3600 })).toEqual({
      ended: [orphan.opId],
      resumed: [],
    });
    expect((await getOperation(orphan.orgId, orphan.opId, true))!).toMatchObject({
      status: 'failed',
      error: { code: 'OPERATION_INTERRUPTED' },
    });
    expect((await getDeployment(orphan.orgId, orphan.deploymentId, true))!.status).toBe('failed');
    // Nothing is left for a second pass.
    expect(await reconcile({ now: overdue, graceSeconds: 0, phaseTimeoutSeconds: 3600 })).toEqual({ ended: [], resumed: [] });
  });

  it('resumes, from the phase it was in, an operation whose workflow no longer exists (a local restart)', async () => {
    const lost = await newCreate();
    // The workflow reached its first phase; then the process that ran it went away.
    await eventually(async () => (await getOperation(lost.orgId, lost.opId, true))!.phase === 'provisioning_db', 'the first phase');
    const arn = `arn:aws:states:us-east-1:000000000000:execution:operation:${lost.opId}`;
    stepFunctions.forget(arn);
    const later = new Date(Date.now() + 120_000);
    expect(await reconcile({ now: later, graceSeconds: 60, phaseTimeoutSeconds: 3600, resumeMissing: true })).toEqual({
      ended: [],
      resumed: [lost.opId],
    });
    expect(stepFunctions.describe({ executionArn: arn })).toMatchObject({ status: 'RUNNING' });
    expect(JSON.parse(stepFunctions.describe({ executionArn: arn }).input).phases).toEqual([
      'provisioning_db',
      'provisioning_infrastructure',
    ]);
    expect((await getOperation(lost.orgId, lost.opId, true))!.status).toBe('running');
  });
});
