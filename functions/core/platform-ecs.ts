/**
 * The ECS driver's rules (adapters/platform/ecs/), pure: what AWS's observations of a
 * service rollout or a one-off task mean for the phase's job (core/platform.ts), and which
 * AWS errors are transient. The adapter reads; this decides.
 */
import type { JobStatus } from './platform.js';

/** What DescribeServices says of a service, reduced to what decides a rollout. */
export interface ServiceObservation {
  /** ACTIVE, DRAINING, INACTIVE, or MISSING when DescribeServices names it a failure. */
  status: string;
  desiredCount: number;
  runningCount: number;
  /** The service's task definition (the one it is moving to). */
  taskDefinition: string;
  /** The PRIMARY deployment: the revision it rolls out and how far it got. */
  primary?: { taskDefinition: string; rolloutState?: string; rolloutStateReason?: string };
}

/** How long to wait between checks of a rollout and of a one-off task (seconds). */
export const ROLLOUT_CHECK_SECONDS = 30;
export const TASK_CHECK_SECONDS = 10;

/**
 * A rollout to `revision` with `desired` tasks: done when the PRIMARY deployment runs that
 * revision, COMPLETED, with every task running. FAILED means the circuit breaker stopped it
 * (and rolled back): permanent. Anything else is still moving.
 */
export function rolloutStatus(service: ServiceObservation | undefined, revision: string, desired: number): JobStatus {
  if (service?.status !== 'ACTIVE') return { state: 'failed', transient: false, message: 'The application service is gone.' };
  const primary = service.primary;
  if (primary?.taskDefinition === revision && primary.rolloutState === 'FAILED')
    return {
      state: 'failed',
      transient: false,
      message: `The application did not become healthy; ECS rolled back to the previous configuration${primary.rolloutStateReason ? `: ${primary.rolloutStateReason}` : '.'}`,
    };
  const done =
    service.taskDefinition === revision &&
    primary?.taskDefinition === revision &&
    primary.rolloutState === 'COMPLETED' &&
    service.desiredCount === desired &&
    service.runningCount === desired;
  return done ? { state: 'succeeded' } : { state: 'running', nextCheckSeconds: ROLLOUT_CHECK_SECONDS };
}

/** What DescribeTasks says of a one-off task. */
export interface TaskObservation {
  lastStatus: string;
  stopCode?: string;
  stoppedReason?: string;
  /** The job container's exit code once it stopped (absent when it never ran). */
  exitCode?: number;
  containerReason?: string;
}

/** Reasons RunTask gives in `failures` (or a task's stop) that pass when tried again later. */
const TRANSIENT_REASONS = /capacity|RESOURCE:|throttl|ResourceInitializationError|timed out/i;

export const isTransientReason = (reason: string): boolean => TRANSIENT_REASONS.test(reason);

/** A one-off task (migration, DAG sync, user) by what `what` names, e.g. "The database migration". */
export function taskStatus(task: TaskObservation | undefined, what: string): JobStatus {
  if (!task) return { state: 'failed', transient: false, message: `${what} task was lost.` };
  if (task.lastStatus !== 'STOPPED') return { state: 'running', nextCheckSeconds: TASK_CHECK_SECONDS };
  if (task.exitCode === 0) return { state: 'succeeded' };
  if (task.exitCode !== undefined) return { state: 'failed', transient: false, message: `${what} failed (exit code ${task.exitCode}).` };
  const reason = task.containerReason ?? task.stoppedReason ?? task.stopCode ?? 'no reason given';
  return { state: 'failed', transient: isTransientReason(reason), message: `${what} did not run: ${reason}` };
}

/** AWS error names that say "try again later" (docs/platform.md: transient), beside any 5xx. */
const TRANSIENT_ERRORS = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'ServerException',
  'InternalFailure',
  'InternalServiceError',
  'InternalServiceErrorException',
  'DatabaseResumingException',
  'PriorityInUseException',
  'ResourceInUseException',
  'LimitExceededException',
]);

export const isTransientAwsError = (name: string, httpStatus: number | undefined): boolean =>
  TRANSIENT_ERRORS.has(name) || (httpStatus !== undefined && httpStatus >= 500);

/** A host-header rule's priority on a listener: the lowest in 1-50,000 that no rule holds. */
export function freePriority(taken: Iterable<number>): number {
  const used = new Set(taken);
  for (let p = 1; p <= 50_000; p++) if (!used.has(p)) return p;
  throw new Error('The listener has no free rule priority.');
}

/** A listener (shard) for a deployment: the one holding the fewest rules, the first on a tie. */
export function pickShard(rulesPerListener: readonly number[]): number {
  let best = 0;
  for (let i = 1; i < rulesPerListener.length; i++) if (rulesPerListener[i]! < rulesPerListener[best]!) best = i;
  return best;
}

/** Task CPU units and memory (MiB) per size: Fargate combinations, strictly growing (decision 52). */
export const TASK_SIZES = {
  small: { cpu: 1024, memory: 3072 },
  medium: { cpu: 2048, memory: 6144 },
  large: { cpu: 4096, memory: 12288 },
} as const satisfies Record<string, { cpu: number; memory: number }>;

export type TaskSize = keyof typeof TASK_SIZES;
export const taskSize = (size: string): { cpu: number; memory: number } => TASK_SIZES[size as TaskSize] ?? TASK_SIZES.small;
