/**
 * Cancel mid-way: the workflow is held inside a phase while the API's cancel runs; the
 * StopExecution reaches this file's own local engine. First by a gated test platform,
 * then by the simulated driver in a two-hour phase, the workflow waiting for real.
 */
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { getOperation } from '../../functions/adapters/dynamo/operation-reads.js';
import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import { cancelOperation } from '../../functions/app/deployment-commands.js';
import { keyActor } from '../../functions/core/events.js';
import type { HostingPlatform } from '../../functions/core/platform.js';
import { startSfnEndpoint } from '../../local/sfn-endpoint.js';
import { eventually } from '../helpers/wait.js';
import { engineWith, recordsFor, startExecution, testPlatform } from '../helpers/workflow-harness.js';

const ACTOR = keyActor('key_cancel_test');

describe('cancel mid-way', () => {
  let endpoint: Awaited<ReturnType<typeof startSfnEndpoint>>;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const { platform: gated, calls } = testPlatform(undefined, gate);
  let active: HostingPlatform = gated;
  const engine = engineWith({ start: (j) => active.start(j), check: (h) => active.check(h), cancel: (h) => active.cancel(h) });

  beforeAll(async () => {
    endpoint = await startSfnEndpoint(engine);
    process.env.AWS_ENDPOINT_URL_SFN = endpoint.endpoint; // cancelOperation's StopExecution reaches this engine
  });
  afterAll(async () => {
    release();
    await engine.settled();
    await endpoint.close();
  });

  it('ends the operation canceled; the phase still running cannot overwrite it; later phases never run', async () => {
    const { op, deploymentId, orgId } = await recordsFor('deployment.create');
    const { executionArn } = startExecution(engine, op);
    const deadline = Date.now() + 10_000;
    while (!calls.includes('provisioning_infrastructure')) {
      if (Date.now() > deadline) throw new Error('workflow never reached provisioning_infrastructure');
      await new Promise((r) => setTimeout(r, 10));
    }
    const canceled = await cancelOperation(orgId, op.id, new Date(), ACTOR);
    expect(canceled).toMatchObject({ status: 'canceled', progress: { phase: 'provisioning_infrastructure' } });
    // Stopped by the cancel, or, if its step saw the cancel first, ended quietly by itself: never failed.
    expect(['ABORTED', 'SUCCEEDED']).toContain(engine.describe({ executionArn }).status);
    release();
    await engine.settled();
    await new Promise((r) => setTimeout(r, 50)); // let the released step's own write attempt finish (it must be refused)
    expect((await getOperation(orgId, op.id, true))!).toMatchObject({ status: 'canceled', phase: 'provisioning_infrastructure' });
    expect((await getDeployment(orgId, deploymentId, true))!.status).toBe('failed');
    expect(calls).toEqual(['provisioning_db', 'provisioning_infrastructure']);
  });

  it('a start still running when the cancel came: the step cancels the job it started once it sees the cancel', async () => {
    // The cancel finds no job on the operation yet; the step that is starting one must stop it itself.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let starting = false;
    const canceledJobs: string[] = [];
    active = {
      start: async (job) => {
        starting = true;
        await held;
        return `held/${job.operationId}/${job.phase}`;
      },
      check: async () => ({ state: 'succeeded' }),
      cancel: async (handle) => {
        canceledJobs.push(handle);
      },
    };
    const { op, orgId } = await recordsFor('deployment.create');
    startExecution(engine, op);
    await eventually(async () => starting, 'the first start to run', 10_000, 10);
    await cancelOperation(orgId, op.id, new Date(), ACTOR);
    expect(canceledJobs).toEqual([]);
    release();
    await eventually(async () => canceledJobs.length > 0, 'the started job to be canceled', 10_000, 20);
    expect(canceledJobs).toEqual([`held/${op.id}/provisioning_db`]);
    expect((await getOperation(orgId, op.id, true))!).toMatchObject({ status: 'canceled', phase: 'provisioning_db' });
    expect((await getOperation(orgId, op.id, true))!.job).toBeUndefined();
  });

  it('during a two-hour phase: stops the waiting at once and cancels the job on the platform', async () => {
    const simulated = simulatedPlatform({ phaseDelayMs: 2 * 3_600_000, simulatedFailure: '' });
    active = simulated;
    const { op, orgId } = await recordsFor('deployment.create');
    const { executionArn } = startExecution(engine, op);
    // The workflow has started the job and is now waiting (for real) to ask about it again.
    const waiting = await eventually(async () => {
      const o = (await getOperation(orgId, op.id, true))!;
      return o.job?.phase === 'provisioning_db' ? o : undefined;
    }, 'the first phase to start its job');
    expect(await simulated.check(waiting.job!.handle)).toMatchObject({ state: 'running' });
    await cancelOperation(orgId, op.id, new Date(), ACTOR);
    expect(engine.describe({ executionArn }).status).toBe('ABORTED');
    // Nothing waits on the job any more: the engine has nothing left running.
    await engine.settled();
    expect(await simulated.check(waiting.job!.handle)).toEqual({ state: 'failed', transient: false, message: 'The job was canceled.' });
    expect((await getOperation(orgId, op.id, true))!).toMatchObject({ status: 'canceled', phase: 'provisioning_db' });
  });
});
