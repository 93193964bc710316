/**
 * The ECS driver's pure rules (functions/core/platform-ecs.ts): what AWS's observations of
 * a rollout, a one-off task or a certificate mean for a phase's job, which errors are transient, and the
 * choices of shard, rule priority and task size.
 */
import fc from 'fast-check';
import {
  CERTIFICATE_CHECK_SECONDS,
  CERTIFICATE_VALIDATION_LIMIT_SECONDS,
  certificateStatus,
  freePriority,
  isTransientAwsError,
  pickShard,
  rolloutStatus,
  type ServiceObservation,
  TASK_SIZES,
  taskStatus,
} from '../../functions/core/platform-ecs.js';

const REV = 'arn:aws:ecs:us-east-1:1:task-definition/airflow-x:2';
const OLD = 'arn:aws:ecs:us-east-1:1:task-definition/airflow-x:1';

const service = (over: Partial<ServiceObservation> = {}): ServiceObservation => ({
  status: 'ACTIVE',
  desiredCount: 1,
  runningCount: 1,
  taskDefinition: REV,
  primary: { taskDefinition: REV, rolloutState: 'COMPLETED' },
  ...over,
});

describe('rolloutStatus', () => {
  it('succeeds only when the primary deployment runs the revision, completed, with every desired task running', () => {
    expect(rolloutStatus(service(), REV, 1)).toEqual({ state: 'succeeded' });
    fc.assert(
      fc.property(
        fc.constantFrom(REV, OLD),
        fc.constantFrom(REV, OLD),
        fc.constantFrom('COMPLETED', 'IN_PROGRESS', undefined),
        fc.nat(3),
        fc.nat(3),
        (svcRev, primRev, rollout, desired, running) => {
          const s = service({
            taskDefinition: svcRev,
            desiredCount: desired,
            runningCount: running,
            primary: { taskDefinition: primRev, ...(rollout ? { rolloutState: rollout } : {}) },
          });
          const done = svcRev === REV && primRev === REV && rollout === 'COMPLETED' && desired === 1 && running === 1;
          expect(rolloutStatus(s, REV, 1).state).toBe(done ? 'succeeded' : 'running');
        },
      ),
    );
  });

  it('a failed rollout of the revision is a permanent failure that says ECS rolled back; a failed older one is not ours', () => {
    const failed = rolloutStatus(
      service({ primary: { taskDefinition: REV, rolloutState: 'FAILED', rolloutStateReason: 'tasks failed' } }),
      REV,
      1,
    );
    expect(failed).toEqual({ state: 'failed', transient: false, message: expect.stringMatching(/rolled back.*tasks failed/) });
    expect(rolloutStatus(service({ primary: { taskDefinition: OLD, rolloutState: 'FAILED' } }), REV, 1).state).toBe('running');
  });

  it('a service gone or inactive is a permanent failure', () => {
    expect(rolloutStatus(undefined, REV, 1)).toMatchObject({ state: 'failed', transient: false });
    expect(rolloutStatus(service({ status: 'INACTIVE' }), REV, 1)).toMatchObject({ state: 'failed', transient: false });
  });
});

describe('taskStatus', () => {
  it('runs until STOPPED; exit 0 succeeds, any other exit code fails for good with its code', () => {
    fc.assert(
      fc.property(fc.constantFrom('PROVISIONING', 'PENDING', 'RUNNING', 'DEPROVISIONING'), (lastStatus) => {
        expect(taskStatus({ lastStatus }, 'The job').state).toBe('running');
      }),
    );
    expect(taskStatus({ lastStatus: 'STOPPED', exitCode: 0 }, 'The job')).toEqual({ state: 'succeeded' });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 255 }), (code) => {
        expect(taskStatus({ lastStatus: 'STOPPED', exitCode: code }, 'The job')).toEqual({
          state: 'failed',
          transient: false,
          message: `The job failed (exit code ${code}).`,
        });
      }),
    );
  });

  it('a task that never ran is transient for capacity or start-up errors, permanent otherwise; a lost task is permanent', () => {
    expect(
      taskStatus({ lastStatus: 'STOPPED', stoppedReason: 'ResourceInitializationError: unable to pull secrets' }, 'The job'),
    ).toMatchObject({
      state: 'failed',
      transient: true,
    });
    expect(taskStatus({ lastStatus: 'STOPPED', containerReason: 'CannotPullContainerError: not found' }, 'The job')).toMatchObject({
      state: 'failed',
      transient: false,
    });
    expect(taskStatus(undefined, 'The job')).toMatchObject({ state: 'failed', transient: false });
  });
});

describe('certificateStatus (decision 322)', () => {
  const domain = '*.0b6f3c1e-6f0a-4c2e-9a51-1f2d3c4b5a69.apps.example.org';

  it('issued goes on; pending validation waits for the next check, for an hour at most', () => {
    expect(certificateStatus({ domain, status: 'ISSUED' })).toBe('issued');
    const waiting = { state: 'running', nextCheckSeconds: CERTIFICATE_CHECK_SECONDS };
    expect(certificateStatus({ domain, status: 'PENDING_VALIDATION' })).toEqual(waiting);
    expect(certificateStatus({ domain, status: 'PENDING_VALIDATION', ageSeconds: CERTIFICATE_VALIDATION_LIMIT_SECONDS })).toEqual(waiting);
    expect(certificateStatus({ domain, status: 'PENDING_VALIDATION', ageSeconds: CERTIFICATE_VALIDATION_LIMIT_SECONDS + 1 })).toEqual({
      state: 'failed',
      transient: false,
      message: expect.stringMatching(
        /^The TLS certificate for \*\.0b6f[^ ]+ was not issued: ACM has not found its DNS validation record in an hour \(ACM: PENDING_VALIDATION\)\. .*the certificate's validation CNAME record must resolve; then delete this deployment and create it again\.$/,
      ),
    });
  });

  it('every other status fails for good, saying which certificate, why and what the operators must check', () => {
    for (const [status, reason, why] of [
      ['FAILED', 'CAA_ERROR', /a CAA record of the domain does not allow Amazon to issue certificates for it \(ACM: FAILED, CAA_ERROR\)/],
      ['FAILED', 'DOMAIN_NOT_ALLOWED', /Amazon does not issue certificates for this domain/],
      ['FAILED', 'OTHER', /ACM refused to issue it \(ACM: FAILED, OTHER\)/],
      ['FAILED', undefined, /ACM refused to issue it \(ACM: FAILED\)/],
      ['VALIDATION_TIMED_OUT', undefined, /its DNS validation record was not found within 72 hours \(ACM: VALIDATION_TIMED_OUT\)/],
      ['REVOKED', undefined, /it is revoked/],
      ['MISSING', undefined, /it is missing/],
    ] as const) {
      const out = certificateStatus({ domain, status, ...(reason ? { failureReason: reason } : {}) });
      expect(out).toMatchObject({ state: 'failed', transient: false });
      const { message } = out as { message: string };
      expect(message).toMatch(/^The TLS certificate for \*\.0b6f3c1e-[^ ]+\.apps\.example\.org was not issued: /);
      expect(message).toMatch(why);
      expect(message).toMatch(/the DNS hosted zone of apps\.example\.org: its CAA records must allow amazon\.com/);
      expect(message).toMatch(/then delete this deployment and create it again\.$/);
      // Only a CAA refusal is certain not to be the validation record's fault.
      expect(message.includes('validation CNAME record must resolve')).toBe(reason !== 'CAA_ERROR');
    }
  });
});

describe('isTransientAwsError', () => {
  it('throttles, busy resources and any 5xx are transient; validation and access errors are not', () => {
    for (const name of ['ThrottlingException', 'ServiceUnavailableException', 'DatabaseResumingException', 'ResourceInUseException'])
      expect(isTransientAwsError(name, 400)).toBe(true);
    fc.assert(fc.property(fc.integer({ min: 500, max: 599 }), (status) => expect(isTransientAwsError('Anything', status)).toBe(true)));
    for (const name of ['AccessDeniedException', 'ValidationException', 'ClientException', 'InvalidParameterException'])
      expect(isTransientAwsError(name, 400)).toBe(false);
  });
});

describe('freePriority and pickShard', () => {
  it('the priority is the lowest one no rule holds', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { maxLength: 150 }), (taken) => {
        const p = freePriority(taken);
        expect(taken).not.toContain(p);
        for (let q = 1; q < p; q++) expect(taken).toContain(q);
      }),
    );
  });

  it('the shard is the listener holding the fewest rules, the first on a tie', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(100), { minLength: 1, maxLength: 8 }), (counts) => {
        const i = pickShard(counts);
        expect(counts[i]).toBe(Math.min(...counts));
        expect(counts.indexOf(Math.min(...counts))).toBe(i);
      }),
    );
  });
});

it('task CPU and memory grow strictly from small to medium to large (decision 52)', () => {
  expect(TASK_SIZES.small.cpu).toBeLessThan(TASK_SIZES.medium.cpu);
  expect(TASK_SIZES.medium.cpu).toBeLessThan(TASK_SIZES.large.cpu);
  expect(TASK_SIZES.small.memory).toBeLessThan(TASK_SIZES.medium.memory);
  expect(TASK_SIZES.medium.memory).toBeLessThan(TASK_SIZES.large.memory);
});
