/**
 * Phases that take hours (far past any Lambda's 15 minutes), run through the real ASL by
 * aws-local-stepfunctions with the simulated driver. The interpreter's own Wait override
 * makes each wait instant while a virtual clock moves by what the workflow asked to wait,
 * so every phase, success, failure, transient retry and timeout plays out in full.
 */
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { getOperation } from '../../functions/adapters/dynamo/operation-reads.js';
import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import { checkPhase, type PhaseInput, startPhase } from '../../functions/app/workflow-phases.js';
import { completeOperation, failOperation, type StepInput } from '../../functions/app/workflow-steps.js';
import type { HostingPlatform, JobHandle } from '../../functions/core/platform.js';
import { LocalStepFunctions } from '../../local/sfn-endpoint.js';
import { recordsFor, run } from '../helpers/workflow-harness.js';

const HOURS = 3_600_000;
const clock = { t: Date.now() };
const now = () => new Date(clock.t);
/** What the current test's workflow does, seen from its steps. */
let current: { platform: HostingPlatform; timeoutSeconds: number; checks: string[] };

const engine = new LocalStepFunctions({
  retryIntervalMs: 1,
  waitMs: 1,
  handlers: {
    'start-phase': (input) =>
      startPhase(input as PhaseInput, current.platform, { timeoutSeconds: current.timeoutSeconds, checkSeconds: 60, now }),
    'check-phase': async (input) => {
      const { phase } = input as PhaseInput;
      current.checks.push(phase);
      const state = await checkPhase(input as PhaseInput & { handle: JobHandle }, current.platform, {
        timeoutSeconds: current.timeoutSeconds,
        checkSeconds: 60,
        now,
      });
      // The Wait the interpreter made instant: the clock moves as if it had lasted.
      clock.t += state.next_check_seconds * 1000;
      return state;
    },
    'complete-operation': async (input) => {
      await completeOperation(input as StepInput, 'apps.test.example', now);
      return {};
    },
    'fail-operation': async (input) => {
      await failOperation(input as StepInput, now);
      return {};
    },
  },
});

/** A simulated platform on the virtual clock, whose every phase takes two hours. */
function twoHourPhases(simulatedFailure = '', timeoutSeconds = 6 * 3600) {
  current = { platform: simulatedPlatform({ phaseDelayMs: 2 * HOURS, simulatedFailure }, () => clock.t), timeoutSeconds, checks: [] };
}

describe('a create whose phases take two hours each', () => {
  it('runs both phases to success, asking about each job about twice, while no step waits', async () => {
    twoHourPhases();
    const { op, orgId, deploymentId } = await recordsFor('deployment.create');
    const started = clock.t;
    expect((await run(engine, op)).status).toBe('SUCCEEDED');
    expect(clock.t - started).toBeGreaterThanOrEqual(4 * HOURS);
    // Start, then one check that learns the job needs two hours, then one that finds it done.
    expect(current.checks).toEqual(['provisioning_db', 'provisioning_db', 'provisioning_infrastructure', 'provisioning_infrastructure']);
    expect(await getOperation(orgId, op.id, true)).toMatchObject({ status: 'succeeded', phase: 'ready' });
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe('ready');
  });

  it('fails in the configured phase, after its two hours, with the driver message', async () => {
    twoHourPhases('provisioning_infrastructure');
    const { op, orgId } = await recordsFor('deployment.create');
    expect((await run(engine, op)).status).toBe('FAILED');
    expect(await getOperation(orgId, op.id, true)).toMatchObject({
      status: 'failed',
      phase: 'provisioning_infrastructure',
      error: {
        code: 'PROVISIONING_INFRASTRUCTURE_FAILED',
        message: 'Simulated failure in phase provisioning_infrastructure (SIMULATED_FAILURE=provisioning_infrastructure).',
      },
    });
  });

  it('asks again with backoff after a transient failure, then gives up', async () => {
    twoHourPhases('provisioning_db:transient');
    const { op, orgId } = await recordsFor('deployment.create');
    expect((await run(engine, op)).status).toBe('FAILED');
    // One check finds the job running, then the failed check and its three retries.
    expect(current.checks).toEqual(Array(5).fill('provisioning_db'));
    expect(await getOperation(orgId, op.id, true)).toMatchObject({
      status: 'failed',
      error: { code: 'PROVISIONING_DB_FAILED', message: expect.stringContaining('SIMULATED_FAILURE=provisioning_db:transient') },
    });
  });

  it('fails a phase that outlasts its limit, and cancels its job', async () => {
    twoHourPhases('', 3600);
    const { op, orgId } = await recordsFor('deployment.create');
    expect((await run(engine, op)).status).toBe('FAILED');
    const failed = (await getOperation(orgId, op.id, true))!;
    expect(failed).toMatchObject({
      status: 'failed',
      phase: 'provisioning_db',
      error: { code: 'OPERATION_TIMED_OUT', message: 'The provisioning_db phase did not finish within 1 hour.' },
    });
    // The check after the deadline canceled the job: it never succeeds, however long it is given.
    clock.t += 3 * HOURS;
    expect(await current.platform.check(failed.job!.handle)).toEqual({
      state: 'failed',
      transient: false,
      message: 'The job was canceled.',
    });
  });
});
