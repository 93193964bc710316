/**
 * The simulated driver behind the start/check/cancel port, its jobs kept in DynamoDB
 * Local: PHASE_DELAY_MS and SIMULATED_FAILURE as documented, and a job that outlives
 * the process that started it (a driver made anew finds it).
 */
import { randomUUID } from 'node:crypto';
import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import type { PhaseJob, WorkPhase } from '../../functions/core/platform.js';

const job = (phase: WorkPhase): PhaseJob => ({
  operationId: `op_${randomUUID()}`,
  phase,
  target: { orgId: `org-${randomUUID().slice(0, 8)}`, deploymentId: randomUUID(), appType: 'airflow', name: 'n' },
});

/** A clock the test moves. */
function clock(start = 1_800_000_000_000) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

describe('the simulated platform', () => {
  it('runs a job for PHASE_DELAY_MS, saying when to ask again, then succeeds', async () => {
    const c = clock();
    const p = simulatedPlatform({ phaseDelayMs: 120_000, simulatedFailure: '' }, c.now);
    const handle = await p.start(job('provisioning_db'));
    expect(await p.check(handle)).toEqual({ state: 'running', nextCheckSeconds: 120 });
    c.advance(119_500);
    expect(await p.check(handle)).toEqual({ state: 'running', nextCheckSeconds: 1 });
    c.advance(500);
    expect(await p.check(handle)).toEqual({ state: 'succeeded' });
  });

  it('starts a job once: starting it again (a retried step, a resumed workflow) returns the same job, not a new one', async () => {
    const c = clock();
    const p = simulatedPlatform({ phaseDelayMs: 60_000, simulatedFailure: '' }, c.now);
    const j = job('destroying_db');
    const handle = await p.start(j);
    c.advance(50_000);
    expect(await p.start(j)).toBe(handle);
    expect(await p.check(handle)).toEqual({ state: 'running', nextCheckSeconds: 10 });
  });

  it('keeps its jobs in the table: a driver made after a restart finishes the job where it was', async () => {
    const c = clock();
    const before = simulatedPlatform({ phaseDelayMs: 30_000, simulatedFailure: '' }, c.now);
    const handle = await before.start(job('syncing_dags'));
    c.advance(20_000);
    const after = simulatedPlatform({ phaseDelayMs: 30_000, simulatedFailure: '' }, c.now);
    expect(await after.check(handle)).toEqual({ state: 'running', nextCheckSeconds: 10 });
    c.advance(10_000);
    expect(await after.check(handle)).toEqual({ state: 'succeeded' });
  });

  it('fails exactly the configured phase, permanently, naming it; <phase>:transient fails it transiently', async () => {
    const permanent = simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: 'provisioning_infrastructure' });
    expect(await permanent.check(await permanent.start(job('provisioning_db')))).toEqual({ state: 'succeeded' });
    expect(await permanent.check(await permanent.start(job('provisioning_infrastructure')))).toEqual({
      state: 'failed',
      transient: false,
      message: 'Simulated failure in phase provisioning_infrastructure (SIMULATED_FAILURE=provisioning_infrastructure).',
    });
    const transient = simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: 'destroying_db:transient' });
    expect(await transient.check(await transient.start(job('destroying_db')))).toMatchObject({ state: 'failed', transient: true });
    expect(await transient.check(await transient.start(job('destroying_infrastructure')))).toEqual({ state: 'succeeded' });
  });

  it('cancels a running job, which then never succeeds; canceling a finished job changes nothing', async () => {
    const c = clock();
    const p = simulatedPlatform({ phaseDelayMs: 60_000, simulatedFailure: '' }, c.now);
    const running = await p.start(job('provisioning_user'));
    await p.cancel(running);
    c.advance(60_000);
    expect(await p.check(running)).toEqual({ state: 'failed', transient: false, message: 'The job was canceled.' });
    const finished = await p.start(job('provisioning_user'));
    c.advance(60_000);
    await p.cancel(finished);
    expect(await p.check(finished)).toEqual({ state: 'succeeded' });
  });
});
