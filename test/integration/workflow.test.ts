import { existsSync } from 'node:fs';
import path from 'node:path';
/**
 * The real ASL file, run by aws-local-stepfunctions behind the local Step Functions
 * endpoint, calling the real step code against DynamoDB Local. Only the hosting
 * platform is replaced, to inject faults.
 */
import aslValidator from 'asl-validator';
import type { DeploymentStatus, OperationType } from '../../contract/schemas.js';
import { applyTransition } from '../../functions/adapters/dynamo/apply-transition.js';
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { getOperation } from '../../functions/adapters/dynamo/operation-reads.js';
import { STEP_RETRIES } from '../../functions/adapters/dynamo/transact.js';
import { systemChanges } from '../../functions/app/change-events.js';
import { destroyDeployment } from '../../functions/app/deployment-commands.js';
import { keyActor } from '../../functions/core/events.js';
import { PHASES } from '../../functions/core/operations.js';
import { PlatformError, TransientPlatformError } from '../../functions/core/platform.js';
import { stateMachineFiles, substitute } from '../../infra/state-machines.js';
import { eventually } from '../helpers/wait.js';
import { engineWith, recordsFor, run, testPlatform } from '../helpers/workflow-harness.js';

describe('statemachines/*.asl.json', () => {
  it('are valid ASL once their placeholders are filled', () => {
    const files = stateMachineFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const values = Object.fromEntries(
        Object.keys(f.functions).map((p) => [p, `arn:aws:lambda:us-east-1:123456789012:function:${f.functions[p]}`]),
      );
      const { isValid, errorsText } = aslValidator(JSON.parse(substitute(f.text, values)));
      expect({ file: f.file, errors: isValid ? '' : errorsText('\n') }).toEqual({ file: f.file, errors: '' });
    }
  });

  it('name only workflow handlers that exist', () => {
    for (const f of stateMachineFiles()) {
      for (const handler of Object.values(f.functions)) {
        expect(existsSync(path.join(import.meta.dirname, `../../functions/workflow/${handler}.ts`))).toBe(true);
      }
    }
  });
});

const FINAL: Record<OperationType, DeploymentStatus> = {
  'deployment.create': 'ready',
  'deployment.destroy': 'destroyed',
  'dag_sync.trigger': 'ready',
  'app_user.provision': 'ready',
  'deployment.update': 'ready',
  'deployment.hibernate': 'ready',
  'deployment.wake': 'ready',
};
const ON_FAILURE: Record<OperationType, DeploymentStatus> = {
  'deployment.create': 'failed',
  'deployment.destroy': 'failed',
  'dag_sync.trigger': 'ready',
  'app_user.provision': 'ready',
  'deployment.update': 'ready',
  'deployment.hibernate': 'ready',
  'deployment.wake': 'ready',
};

describe.each(Object.keys(PHASES) as OperationType[])('the %s workflow', (type) => {
  it('runs every phase in order and succeeds', async () => {
    const { op, deploymentId, orgId } = await recordsFor(type);
    const { platform, calls } = testPlatform();
    const execution = await run(engineWith(platform), op);
    expect(execution.status).toBe('SUCCEEDED');
    expect(calls).toEqual(PHASES[type].work);
    const done = (await getOperation(orgId, op.id, true))!;
    expect(done).toMatchObject({
      status: 'succeeded',
      phase: PHASES[type].done,
      started_at: expect.any(String),
      ended_at: expect.any(String),
    });
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe(FINAL[type]);
    if (type === 'deployment.create') expect(done.result).toEqual({ url: `https://airflow.${deploymentId}.apps.test.example` });
  });

  it.each(PHASES[type].work.map((p) => [p]))('fails in %s: the operation keeps the phase and carries error.code/message', async (phase) => {
    const { op, deploymentId, orgId } = await recordsFor(type);
    const { platform, calls } = testPlatform((p) => (p === phase ? new PlatformError(`boom in ${p}`) : undefined));
    const execution = await run(engineWith(platform), op);
    expect(execution.status).toBe('FAILED');
    expect(calls.at(-1)).toBe(phase);
    expect(calls.filter((c) => c === phase)).toHaveLength(1); // permanent errors are not retried
    const failed = (await getOperation(orgId, op.id, true))!;
    expect(failed).toMatchObject({
      status: 'failed',
      phase,
      error: { code: `${phase.toUpperCase()}_FAILED`, message: `boom in ${phase}` },
      ended_at: expect.any(String),
    });
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe(ON_FAILURE[type]);
  });
});

describe('retries', () => {
  it('retries a transient platform error with backoff and then succeeds', async () => {
    const { op, orgId } = await recordsFor('deployment.create');
    const { platform, calls } = testPlatform((p, n) =>
      p === 'provisioning_db' && n <= 2 ? new TransientPlatformError('flaky') : undefined,
    );
    expect((await run(engineWith(platform), op)).status).toBe('SUCCEEDED');
    expect(calls).toEqual(['provisioning_db', 'provisioning_db', 'provisioning_db', 'provisioning_infrastructure']);
    expect((await getOperation(orgId, op.id, true))!.status).toBe('succeeded');
  });

  it('gives up after the retries and fails the operation', async () => {
    const { op, orgId } = await recordsFor('deployment.create');
    const { platform, calls } = testPlatform((p) => (p === 'provisioning_db' ? new TransientPlatformError('still down') : undefined));
    expect((await run(engineWith(platform), op)).status).toBe('FAILED');
    expect(calls).toEqual(Array(4).fill('provisioning_db'));
    expect((await getOperation(orgId, op.id, true))!).toMatchObject({
      status: 'failed',
      error: { code: 'PROVISIONING_DB_FAILED', message: 'still down' },
    });
  });
});

describe('after a failed destroy', () => {
  it('DELETE may be sent again: failed → destroying → destroyed (decision 10)', async () => {
    const { op, deploymentId, orgId } = await recordsFor('deployment.destroy');
    const { platform } = testPlatform((p) => (p === 'destroying_db' ? new PlatformError('disk busy') : undefined));
    expect((await run(engineWith(platform), op)).status).toBe('FAILED');
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe('failed');
    // The retry goes through the API's own command and the shared local endpoint (simulated platform).
    const again = await destroyDeployment(orgId, deploymentId, new Date(), keyActor('key_workflow_test'));
    expect(again.deploymentId).toBe(deploymentId);
    expect(again.operationId).not.toBe(op.id);
    await eventually(async () => (await getDeployment(orgId, deploymentId, true))!.status === 'destroyed', 'the second destroy');
  });
});

describe('an operation that ended without its workflow', () => {
  it('ends the workflow quietly (succeeded, not failed), touching neither the platform nor the record', async () => {
    const { op, orgId } = await recordsFor('dag_sync.trigger');
    const at = new Date().toISOString();
    expect(
      await applyTransition({
        operation: op,
        change: { status: 'canceled', message: 'Canceled by request.', ended_at: at },
        at,
        retries: STEP_RETRIES,
        events: systemChanges,
      }),
    ).toBe(true);
    const { platform, calls } = testPlatform();
    expect((await run(engineWith(platform), op)).status).toBe('SUCCEEDED');
    expect(calls).toEqual([]);
    expect(await getOperation(orgId, op.id, true)).toMatchObject({ status: 'canceled', phase: 'queued' });
  });
});
