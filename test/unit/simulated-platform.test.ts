import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import { PlatformError, TransientPlatformError } from '../../functions/core/platform.js';

const target = { orgId: 'o', deploymentId: 'd', appType: 'airflow' as const, name: 'n' };

describe('the simulated platform', () => {
  it('succeeds in every phase when no failure is configured', async () => {
    const p = simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: '' });
    await expect(
      Promise.all([
        p.provisionDatabase(target),
        p.provisionInfrastructure(target),
        p.syncDags(target),
        p.provisionAppUser(target, { username: 'u', email: 'u@example.com', role: 'viewer' }),
        p.destroyInfrastructure(target),
        p.destroyDatabase(target),
      ]),
    ).resolves.toBeDefined();
  });

  it('fails exactly the configured phase, permanently, naming it', async () => {
    const p = simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: 'provisioning_infrastructure' });
    await expect(p.provisionDatabase(target)).resolves.toBeUndefined();
    const failure = p.provisionInfrastructure(target);
    await expect(failure).rejects.toBeInstanceOf(PlatformError);
    await expect(failure).rejects.toThrow(/provisioning_infrastructure/);
  });

  it('fails with a transient (retried) error for <phase>:transient', async () => {
    const p = simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: 'destroying_db:transient' });
    await expect(p.destroyDatabase(target)).rejects.toBeInstanceOf(TransientPlatformError);
    await expect(p.destroyInfrastructure(target)).resolves.toBeUndefined();
  });

  it('takes the configured delay per phase', async () => {
    jest.useFakeTimers();
    try {
      const p = simulatedPlatform({ phaseDelayMs: 2000, simulatedFailure: '' });
      let done = false;
      const step = p.syncDags(target).then(() => (done = true));
      await jest.advanceTimersByTimeAsync(1999);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await step;
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});
