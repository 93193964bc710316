/**
 * A hosting platform for tests, where each phase's work is one async call: the job is
 * that call's promise, checked without waiting on it, so tests inject faults and hold
 * phases with plain functions. After a transient failure the next check starts a new
 * attempt (the workflow asks again with backoff), a PlatformError is final, anything else is unexpected.
 */
import {
  type DeploymentTarget,
  type HostingPlatform,
  type JobStatus,
  PlatformError,
  TransientPlatformError,
  type WorkPhase,
} from '../../functions/core/platform.js';

type Step = (phase: WorkPhase) => (target: DeploymentTarget, input?: Record<string, unknown>) => Promise<void>;

interface Attempt {
  promise: Promise<void>;
  outcome?: { error?: unknown };
  /** A transient failure is reported once; the next check makes a new attempt. */
  reported?: boolean;
}

export interface CallPlatform extends HostingPlatform {
  /** The handles cancel() was called with. */
  canceled: string[];
}

export function platformOf(step: Step): CallPlatform {
  const jobs = new Map<string, { run: () => Attempt; attempt: Attempt }>();
  const attempt = (call: () => Promise<void>): Attempt => {
    const a: Attempt = { promise: Promise.resolve() };
    a.promise = call().then(
      () => {
        a.outcome = {};
      },
      (error: unknown) => {
        a.outcome = { error };
      },
    );
    return a;
  };
  const canceled: string[] = [];
  return {
    canceled,
    async start(job) {
      const handle = `${job.operationId}/${job.phase}`;
      if (!jobs.has(handle)) {
        const run = () => attempt(() => step(job.phase)(job.target, job.input));
        jobs.set(handle, { run, attempt: run() });
      }
      return handle;
    },
    async check(handle): Promise<JobStatus> {
      const job = jobs.get(handle);
      if (!job) return { state: 'failed', transient: false, message: `No job ${handle}.` };
      if (job.attempt.reported) job.attempt = job.run();
      // Wait a moment for the call, so a held phase is not asked about in a tight loop.
      await Promise.race([job.attempt.promise, new Promise((r) => setTimeout(r, 20))]);
      const outcome = job.attempt.outcome;
      if (!outcome) return { state: 'running', nextCheckSeconds: 0 };
      if (!outcome.error) return { state: 'succeeded' };
      if (outcome.error instanceof TransientPlatformError) {
        job.attempt.reported = true;
        return { state: 'failed', transient: true, message: outcome.error.message };
      }
      if (outcome.error instanceof PlatformError) return { state: 'failed', transient: false, message: outcome.error.message };
      throw outcome.error;
    },
    async cancel(handle) {
      canceled.push(handle);
    },
  };
}
