/**
 * The real ASL file, run by aws-local-stepfunctions behind the local Step Functions
 * endpoint, calling the real step code against DynamoDB Local. Only the hosting
 * platform is replaced, to inject faults and to hold a phase open.
 */
import aslValidator from 'asl-validator';
import { getDeployment } from '../../functions/adapters/dynamo/deployments-repo';
import { insertDeployment, insertOperation } from '../../functions/adapters/dynamo/lifecycle-repo';
import { getOperation } from '../../functions/adapters/dynamo/operations-repo';
import { withRetries } from '../../functions/adapters/dynamo/transact';
import { PlatformError, TransientPlatformError, type HostingPlatform } from '../../functions/adapters/platform/hosting-platform';
import { cancelOperation } from '../../functions/core/deployment-commands';
import { PHASES, queuedOperation, workflowInput, type OperationRecord } from '../../functions/core/operations';
import type { DeploymentRecord } from '../../functions/core/deployments';
import type { DeploymentStatus, OperationType } from '../../functions/core/schemas';
import { completeOperation, failOperation, runPhase, type StepInput } from '../../functions/core/workflow-steps';
import { LocalStepFunctions, localStateMachineArn, startSfnEndpoint } from '../../infra/local/sfn-endpoint';
import { stateMachineFiles, substitute } from '../../infra/state-machines';
import { newOrgId } from '../helpers/fixtures';

const LIMITS = { perHour: 1000, perMinute: 100, createsPerHour: 1000 };

/** A platform that records its calls and fails as told. */
function testPlatform(fail: (phase: string, call: number) => Error | undefined = () => undefined, gate?: Promise<void>) {
  const calls: string[] = [];
  const step = (phase: string) => async () => {
    calls.push(phase);
    if (gate && phase === 'provisioning_infrastructure') await gate;
    const e = fail(phase, calls.filter((c) => c === phase).length);
    if (e) throw e;
  };
  const platform: HostingPlatform = {
    provisionDatabase: step('provisioning_db'),
    provisionInfrastructure: step('provisioning_infrastructure'),
    provisionAppUser: step('provisioning_user'),
    syncDags: step('syncing_dags'),
    destroyInfrastructure: step('destroying_infrastructure'),
    destroyDatabase: step('destroying_db'),
  };
  return { platform, calls };
}

function engineWith(platform: HostingPlatform) {
  return new LocalStepFunctions({
    retryIntervalMs: 1,
    handlers: {
      'run-phase': async (input) => { await runPhase(input as StepInput & { phase: string }, platform); return {}; },
      'complete-operation': async (input) => { await completeOperation(input as StepInput, 'apps.test.example'); return {}; },
      'fail-operation': async (input) => { await failOperation(input as StepInput); return {}; },
    },
  });
}

async function newDeployment(orgId: string, status: DeploymentStatus = 'provisioning') {
  const made = await withRetries(() => insertDeployment({
    orgId, limits: LIMITS, now: new Date(),
    build: (at) => {
      const id = crypto.randomUUID();
      const operation = queuedOperation({ org_id: orgId, type: 'deployment.create', resource_id: id, requested_at: at });
      const deployment: DeploymentRecord = {
        id, org_id: orgId, name: `wf-${id.slice(0, 6)}`, app_type: 'airflow', status: 'provisioning', environment_id: 'env_default',
        created_at: at, updated_at: at, last_operation_id: operation.id, op_count: 1,
      };
      return { deployment, operation };
    },
  }));
  return { ...made, deployment: { ...made.deployment, status } };
}

/** Records for an operation of `type` in the state its workflow starts from. */
async function recordsFor(type: OperationType): Promise<{ op: OperationRecord; deploymentId: string; orgId: string }> {
  const orgId = newOrgId();
  const { deployment, operation } = await newDeployment(orgId);
  if (type === 'deployment.create') return { op: operation, deploymentId: deployment.id, orgId };
  // Finish the create first (a ready deployment), then add the operation under test.
  await completeOperation({ org_id: orgId, operation_id: operation.id, deployment_id: deployment.id }, 'apps.test.example');
  const ready = (await getDeployment(orgId, deployment.id, true))!;
  const op = await withRetries(() => insertOperation({
    deployment: ready, now: new Date(),
    build: (at) => queuedOperation({ org_id: orgId, type, resource_id: deployment.id, requested_at: at }),
    ...(type === 'deployment.destroy' ? { deploymentStatus: 'destroying' as const } : {}),
  }));
  return { op, deploymentId: deployment.id, orgId };
}

async function run(engine: LocalStepFunctions, op: OperationRecord) {
  const { executionArn } = engine.start({ stateMachineArn: localStateMachineArn('operation'), name: op.id, input: JSON.stringify(workflowInput(op)) });
  await engine.settled();
  return engine.describe({ executionArn });
}

describe('statemachines/*.asl.json', () => {
  it('are valid ASL once their placeholders are filled', () => {
    const files = stateMachineFiles();
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const values = Object.fromEntries(Object.keys(f.functions).map((p) => [p, `arn:aws:lambda:us-east-1:123456789012:function:${f.functions[p]}`]));
      const { isValid, errorsText } = aslValidator(JSON.parse(substitute(f.text, values)));
      expect({ file: f.file, errors: isValid ? '' : errorsText('\n') }).toEqual({ file: f.file, errors: '' });
    }
  });

  it('name only workflow handlers that exist', () => {
    for (const f of stateMachineFiles()) {
      for (const handler of Object.values(f.functions)) {
        expect(() => require.resolve(`../../functions/workflow/${handler}`)).not.toThrow();
      }
    }
  });
});

const FINAL: Record<OperationType, DeploymentStatus> = {
  'deployment.create': 'ready', 'deployment.destroy': 'destroyed', 'dag_sync.trigger': 'ready', 'app_user.provision': 'ready',
};
const ON_FAILURE: Record<OperationType, DeploymentStatus> = {
  'deployment.create': 'failed', 'deployment.destroy': 'failed', 'dag_sync.trigger': 'ready', 'app_user.provision': 'ready',
};

describe.each(Object.keys(PHASES) as OperationType[])('the %s workflow', (type) => {
  it('runs every phase in order and succeeds', async () => {
    const { op, deploymentId, orgId } = await recordsFor(type);
    const { platform, calls } = testPlatform();
    const execution = await run(engineWith(platform), op);
    expect(execution.status).toBe('SUCCEEDED');
    expect(calls).toEqual(PHASES[type].work);
    const done = (await getOperation(orgId, op.id, true))!;
    expect(done).toMatchObject({ status: 'succeeded', phase: PHASES[type].done, started_at: expect.any(String), ended_at: expect.any(String) });
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
    expect(failed).toMatchObject({ status: 'failed', phase, error: { code: `${phase.toUpperCase()}_FAILED`, message: `boom in ${phase}` }, ended_at: expect.any(String) });
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe(ON_FAILURE[type]);
  });
});

describe('retries', () => {
  it('retries a transient platform error with backoff and then succeeds', async () => {
    const { op, orgId } = await recordsFor('deployment.create');
    const { platform, calls } = testPlatform((p, n) => (p === 'provisioning_db' && n <= 2 ? new TransientPlatformError('flaky') : undefined));
    expect((await run(engineWith(platform), op)).status).toBe('SUCCEEDED');
    expect(calls).toEqual(['provisioning_db', 'provisioning_db', 'provisioning_db', 'provisioning_infrastructure']);
    expect((await getOperation(orgId, op.id, true))!.status).toBe('succeeded');
  });

  it('gives up after the retries and fails the operation', async () => {
    const { op, orgId } = await recordsFor('deployment.create');
    const { platform, calls } = testPlatform((p) => (p === 'provisioning_db' ? new TransientPlatformError('still down') : undefined));
    expect((await run(engineWith(platform), op)).status).toBe('FAILED');
    expect(calls).toEqual(Array(4).fill('provisioning_db'));
    expect((await getOperation(orgId, op.id, true))!).toMatchObject({ status: 'failed', error: { code: 'PROVISIONING_DB_FAILED', message: 'still down' } });
  });
});

describe('cancel mid-way', () => {
  let endpoint: Awaited<ReturnType<typeof startSfnEndpoint>>;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { platform, calls } = testPlatform(undefined, gate);
  const engine = engineWith(platform);

  const shared = process.env.AWS_ENDPOINT_URL_SFN;

  beforeAll(async () => {
    endpoint = await startSfnEndpoint(engine);
    process.env.AWS_ENDPOINT_URL_SFN = endpoint.endpoint; // cancelOperation's StopExecution reaches this engine
  });
  afterAll(async () => {
    await endpoint.close();
    process.env.AWS_ENDPOINT_URL_SFN = shared;
  });

  it('ends the operation canceled; the phase still running cannot overwrite it; later phases never run', async () => {
    const { op, deploymentId, orgId } = await recordsFor('deployment.create');
    const { executionArn } = engine.start({ stateMachineArn: localStateMachineArn('operation'), name: op.id, input: JSON.stringify(workflowInput(op)) });
    const deadline = Date.now() + 10_000;
    while (!calls.includes('provisioning_infrastructure')) {
      if (Date.now() > deadline) throw new Error('workflow never reached provisioning_infrastructure');
      await new Promise((r) => setTimeout(r, 10));
    }
    const canceled = await cancelOperation(orgId, op.id, new Date());
    expect(canceled).toMatchObject({ status: 'canceled', progress: { phase: 'provisioning_infrastructure' } });
    expect(engine.describe({ executionArn }).status).toBe('ABORTED');
    release();
    await engine.settled();
    await new Promise((r) => setTimeout(r, 50)); // let the released step's own write attempt finish (it must be refused)
    expect((await getOperation(orgId, op.id, true))!).toMatchObject({ status: 'canceled', phase: 'provisioning_infrastructure' });
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe('failed');
    expect(calls).toEqual(['provisioning_db', 'provisioning_infrastructure']);
  });
});
