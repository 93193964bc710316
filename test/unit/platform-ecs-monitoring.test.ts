/**
 * The ECS driver's health rules (functions/core/platform-ecs-monitoring.ts): what the
 * service, its tasks' container health checks, its load balancer targets and the Data API
 * say of each component of decision 48, with the reason in the message.
 */
import fc from 'fast-check';
import { rollUp } from '../../functions/core/health.js';
import { ecsHealth, type HealthObservations } from '../../functions/core/platform-ecs-monitoring.js';

const AIRFLOW = ['webserver', 'scheduler', 'dag-processor', 'triggerer'];
const task = (over: Record<string, string> = {}, names = AIRFLOW) => ({
  lastStatus: 'RUNNING',
  containers: names.map((name) => ({ name, healthStatus: over[name] ?? 'HEALTHY' })),
});
const healthy = (over: Partial<HealthObservations> = {}): HealthObservations => ({
  service: { status: 'ACTIVE', desiredCount: 1, runningCount: 1, rolloutState: 'COMPLETED' },
  tasks: [task()],
  targets: [{ state: 'healthy' }],
  database: { ok: true },
  ...over,
});
const statuses = (o: HealthObservations, app: 'airflow' | 'superset' = 'airflow') =>
  Object.fromEntries(ecsHealth(app, o).map((c) => [c.name, c.status]));

describe('ECS health (decision 48)', () => {
  it('is every component healthy, in decision 48 order, for a running service with healthy containers and targets', () => {
    expect(ecsHealth('airflow', healthy())).toEqual(
      ['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db'].map((name) => ({ name, status: 'healthy', message: null })),
    );
    expect(ecsHealth('superset', healthy({ tasks: [task({}, ['superset'])] })).map((c) => [c.name, c.status])).toEqual([
      ['webserver', 'healthy'],
      ['metadata_db', 'healthy'],
    ]);
  });

  it('names the container whose health check fails, and only its component', () => {
    const out = ecsHealth('airflow', healthy({ tasks: [task({ 'dag-processor': 'UNHEALTHY' }), task()] }));
    expect(out.find((c) => c.name === 'dag_processor')).toEqual({
      name: 'dag_processor',
      status: 'unhealthy',
      message: "The dag-processor container's health check fails (UNHEALTHY in 1 of 2 running tasks).",
    });
    expect(rollUp(out)).toBe('degraded');
    expect(rollUp(ecsHealth('airflow', healthy({ tasks: [task({ scheduler: 'UNHEALTHY' })] })))).toBe('unhealthy');
  });

  it('says how many tasks run when none does, with the rollout failure, for every app component; the database apart', () => {
    const out = ecsHealth(
      'airflow',
      healthy({
        service: { status: 'ACTIVE', desiredCount: 1, runningCount: 0, rolloutState: 'FAILED', rolloutStateReason: 'circuit breaker' },
        tasks: [],
      }),
    );
    expect(out.slice(0, 4).map((c) => [c.status, c.message])).toEqual(Array(4).fill(['unhealthy', '0 of 1 task running. circuit breaker']));
    expect(out[4]).toEqual({ name: 'metadata_db', status: 'healthy', message: null });
    expect(statuses(healthy({ service: undefined }))).toMatchObject({ webserver: 'unhealthy', triggerer: 'unhealthy' });
    expect(ecsHealth('superset', healthy({ service: undefined }))[0]!.message).toBe("The application's ECS service is missing.");
  });

  it('makes the webserver unhealthy when no load balancer target is healthy, saying why', () => {
    expect(ecsHealth('airflow', healthy({ targets: [] }))[0]).toEqual({
      name: 'webserver',
      status: 'unhealthy',
      message: 'No task is registered with the load balancer.',
    });
    expect(
      ecsHealth('airflow', healthy({ targets: [{ state: 'unhealthy', description: 'Health checks failed with these codes: [502]' }] }))[0]!
        .message,
    ).toBe('0 of 1 load balancer target healthy: Health checks failed with these codes: [502]');
    expect(statuses(healthy({ targets: [{ state: 'unhealthy' }, { state: 'healthy' }] })).webserver).toBe('healthy');
  });

  it('is unknown while a container health check has not reported, and the database as the Data API says', () => {
    const out = ecsHealth('airflow', healthy({ tasks: [task({ triggerer: 'UNKNOWN' })], database: { ok: false, message: 'gone' } }));
    expect(out.find((c) => c.name === 'triggerer')).toMatchObject({ status: 'unknown', message: expect.stringMatching(/not reported/) });
    expect(out.at(-1)).toEqual({ name: 'metadata_db', status: 'unhealthy', message: 'gone' });
  });

  it('never reports a component healthy unless its container is HEALTHY in every running task', () => {
    const status = fc.constantFrom('HEALTHY', 'UNHEALTHY', 'UNKNOWN');
    fc.assert(
      fc.property(fc.array(fc.record({ scheduler: status, webserver: status }), { minLength: 1, maxLength: 3 }), (tasks) => {
        const out = statuses(healthy({ tasks: tasks.map((t) => task(t)) }));
        for (const c of ['scheduler', 'webserver'] as const) expect(out[c] === 'healthy').toBe(tasks.every((t) => t[c] === 'HEALTHY'));
      }),
    );
  });
});
