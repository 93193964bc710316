/**
 * Runs the real ASL file in aws-local-stepfunctions with the real step code against
 * DynamoDB Local; only the hosting platform is replaced, to inject faults or hold a phase.
 */

import type { DeploymentStatus, OperationType } from '../../contract/schemas.js';
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { insertOperation } from '../../functions/adapters/dynamo/insert-operation.js';
import { withWriteState } from '../../functions/adapters/dynamo/org-lock.js';
import { STEP_RETRIES } from '../../functions/adapters/dynamo/transact.js';
import { systemChanges } from '../../functions/app/change-events.js';
import { checkPhase, type PhaseInput, startPhase } from '../../functions/app/workflow-phases.js';
import { completeOperation, failOperation, operationOf, type StepInput } from '../../functions/app/workflow-steps.js';
import { type OperationRecord, queuedOperation, workflowInput } from '../../functions/core/operations.js';
import type { HostingPlatform, JobHandle } from '../../functions/core/platform.js';
import { lambdaFunction } from '../../functions/middleware/invocation.js';
import { LocalStepFunctions, localStateMachineArn, startSfnEndpoint, type TaskHandler } from '../../local/sfn-endpoint.js';
import { platformOf } from './call-platform.js';
import { newOrgId } from './fixtures.js';
import { seedDeployment } from './seed-deployment.js';

/** Phases of a test's own limit and pace: a long limit, and a job asked about again at once. */
export const TEST_TIMING = { timeoutSeconds: 3600, checkSeconds: 0 };

/** A step as its module makes it: the step's code inside the invocation's frame (its metrics written as it ends). */
const step = <E extends StepInput>(work: (input: E) => Promise<unknown>): TaskHandler => lambdaFunction(work, operationOf) as TaskHandler;

/** The workflow's phase steps, on the given platform. */
export function phaseSteps(platform: HostingPlatform, timing = TEST_TIMING): Record<string, TaskHandler> {
  return {
    'start-phase': step((input: PhaseInput) => startPhase(input, platform, timing)),
    'check-phase': step((input: PhaseInput & { handle: JobHandle }) => checkPhase(input, platform, timing)),
  };
}

/** A platform that records its calls and fails as told. */
export function testPlatform(fail: (phase: string, call: number) => Error | undefined = () => undefined, gate?: Promise<void>) {
  const calls: string[] = [];
  const step = (phase: string) => async () => {
    calls.push(phase);
    if (gate && phase === 'provisioning_infrastructure') await gate;
    const e = fail(phase, calls.filter((c) => c === phase).length);
    if (e) throw e;
  };
  const platform = platformOf(step);
  return { platform, calls };
}

export function engineWith(platform: HostingPlatform) {
  return new LocalStepFunctions({
    retryIntervalMs: 1,
    handlers: {
      ...phaseSteps(platform),
      'complete-operation': step(async (input: StepInput) => {
        await completeOperation(input, 'apps.test.example');
        return {};
      }),
      'fail-operation': step(async (input: StepInput) => {
        await failOperation(input);
        return {};
      }),
    },
  });
}

export async function newDeployment(orgId: string, status: DeploymentStatus = 'provisioning') {
  const made = await seedDeployment(orgId, { name: `wf-${crypto.randomUUID().slice(0, 6)}`, app_type: 'airflow' });
  return { ...made, deployment: { ...made.deployment, status } };
}

/** Records for an operation of `type` in the state its workflow starts from. */
export async function recordsFor(type: OperationType): Promise<{ op: OperationRecord; deploymentId: string; orgId: string }> {
  const orgId = newOrgId();
  const { deployment, operation } = await newDeployment(orgId);
  if (type === 'deployment.create') return { op: operation, deploymentId: deployment.id, orgId };
  // Finish the create first (a ready deployment), then add the operation under test.
  await completeOperation({ org_id: orgId, operation_id: operation.id, deployment_id: deployment.id }, 'apps.test.example');
  const ready = (await getDeployment(orgId, deployment.id, true))!;
  const op = await withWriteState(
    orgId,
    deployment.id,
    ({ org }) =>
      insertOperation({
        deployment: ready,
        org,
        now: new Date(),
        events: systemChanges,
        build: (at) => queuedOperation({ org_id: orgId, type, resource_id: deployment.id, requested_at: at }),
        ...(type === 'deployment.destroy' ? { deploymentStatus: 'destroying' as const } : {}),
      }),
    STEP_RETRIES,
  );
  return { op, deploymentId: deployment.id, orgId };
}

export async function run(engine: LocalStepFunctions, op: OperationRecord) {
  const { executionArn } = engine.start({
    stateMachineArn: localStateMachineArn('operation'),
    name: op.id,
    input: JSON.stringify(workflowInput(op)),
  });
  await engine.settled();
  return engine.describe({ executionArn });
}

export const startExecution = (engine: LocalStepFunctions, op: OperationRecord) =>
  engine.start({ stateMachineArn: localStateMachineArn('operation'), name: op.id, input: JSON.stringify(workflowInput(op)) });

/**
 * For the calling test file: workflows whose phases run on `platform`, behind a local
 * Step Functions endpoint the handlers find through AWS_ENDPOINT_URL_SFN. At the end,
 * `release` lets held phases go before the engine settles.
 */
export function workflowsOn(
  platform: HostingPlatform,
  options: { retryIntervalMs?: number; release?: () => void; timing?: typeof TEST_TIMING } = {},
): LocalStepFunctions {
  const engine = new LocalStepFunctions({
    retryIntervalMs: options.retryIntervalMs,
    handlers: phaseSteps(platform, options.timing),
  });
  let endpoint: Awaited<ReturnType<typeof startSfnEndpoint>> | undefined;
  beforeAll(async () => {
    endpoint = await startSfnEndpoint(engine);
    process.env.AWS_ENDPOINT_URL_SFN = endpoint.endpoint;
  });
  afterAll(async () => {
    options.release?.();
    await engine.settled();
    await endpoint?.close();
  });
  return engine;
}
