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

/**
 * How soon the driver asks to be checked again (seconds): a rollout, a one-off task, a
 * certificate waiting for its DNS validation, and a service just made (its tasks start in
 * seconds). The workflow waits at least a sixth of the time the phase has run (decision
 * 323), so these count early in a phase; a create's checks stay under 100 transitions
 * (test/unit/create-transitions.test.ts).
 */
export const ROLLOUT_CHECK_SECONDS = 30;
export const TASK_CHECK_SECONDS = 10;
export const CERTIFICATE_CHECK_SECONDS = 15;
export const SERVICE_MADE_CHECK_SECONDS = 5;

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

/** What DescribeCertificate says of a deployment's certificate (decision 274). */
export interface CertificateObservation {
  /** `*.<id>.<domain>`. */
  domain: string;
  /** PENDING_VALIDATION, ISSUED, FAILED, VALIDATION_TIMED_OUT, REVOKED, EXPIRED or INACTIVE. */
  status: string;
  /** ACM's FailureReason when FAILED, e.g. CAA_ERROR. */
  failureReason?: string;
  /** How long ago it was requested (seconds), when known. */
  ageSeconds?: number;
}

/**
 * How long a certificate may wait for its DNS validation. ACM validates a record in a
 * Route 53 zone within minutes and gives up only after 72 hours, far past a phase's
 * limit: a record unseen for an hour (a zone not delegated, say) will not be seen.
 */
export const CERTIFICATE_VALIDATION_LIMIT_SECONDS = 3600;

/** ACM's failure reasons in a customer's words (the ones DNS validation of a public certificate can meet). */
const CERTIFICATE_FAILURES: Record<string, string> = {
  CAA_ERROR: 'a CAA record of the domain does not allow Amazon to issue certificates for it',
  NO_AVAILABLE_CONTACTS: 'no one could be reached to validate the domain',
  ADDITIONAL_VERIFICATION_REQUIRED: 'Amazon needs more information about the domain before it issues a certificate for it',
  DOMAIN_NOT_ALLOWED: 'Amazon does not issue certificates for this domain',
  INVALID_PUBLIC_DOMAIN: 'the domain is not a valid public domain name',
  DOMAIN_VALIDATION_DENIED: 'the validation of the domain was denied',
};

/**
 * Where a certificate stands (decision 322): ISSUED goes on, PENDING_VALIDATION waits
 * (ACM validates by DNS in minutes) up to an hour, and every other status is final on ACM's side, so it
 * fails the phase for good: the same request, tried again, answers the same certificate.
 * The message says what failed, why and what to do, in words a customer can act on.
 */
export function certificateStatus(c: CertificateObservation): 'issued' | JobStatus {
  if (c.status === 'ISSUED') return 'issued';
  const stuck = c.status === 'PENDING_VALIDATION' && (c.ageSeconds ?? 0) > CERTIFICATE_VALIDATION_LIMIT_SECONDS;
  if (c.status === 'PENDING_VALIDATION' && !stuck) return { state: 'running', nextCheckSeconds: CERTIFICATE_CHECK_SECONDS };
  const zone = c.domain.split('.').slice(2).join('.');
  const why = stuck
    ? 'ACM has not found its DNS validation record in an hour'
    : c.status === 'VALIDATION_TIMED_OUT'
      ? 'its DNS validation record was not found within 72 hours'
      : c.status === 'FAILED'
        ? (CERTIFICATE_FAILURES[c.failureReason ?? ''] ?? 'ACM refused to issue it')
        : `it is ${c.status.toLowerCase().replaceAll('_', ' ')}`;
  const caa = 'its CAA records must allow amazon.com (or it must have none)';
  const fix = c.failureReason === 'CAA_ERROR' ? caa : `${caa}, and the certificate's validation CNAME record must resolve`;
  return {
    state: 'failed',
    transient: false,
    message:
      `The TLS certificate for ${c.domain} was not issued: ${why} (ACM: ${c.status}${c.failureReason ? `, ${c.failureReason}` : ''}). ` +
      `The deployment cannot serve its URL without it. The platform's operators must check the DNS hosted zone of ${zone}: ${fix}; ` +
      'then delete this deployment and create it again.',
  };
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
