/**
 * The steps of the operation workflow (statemachines/operation.asl.json). Each step
 * reads the operation and writes only while it is not terminal, so a cancel or a
 * timeout that ended it first always wins, and a retried step changes nothing twice.
 */

import { applyTransition } from '../adapters/dynamo/apply-transition.js';
import { getDeployment } from '../adapters/dynamo/deployment-reads.js';
import { getOperation, listActiveOperations } from '../adapters/dynamo/operation-reads.js';
import { Retry, STEP_RETRIES, withRetries } from '../adapters/dynamo/transact.js';
import { restoreConfig } from '../adapters/platform/hosting-platform.js';
import { describeExecution, startExecution, stopExecution } from '../adapters/sfn/executions.js';
import { CHECK_FLOOR_FIRST_SECONDS, nextCheck } from '../core/check-schedule.js';
import { type DeploymentRecord, deploymentMoveAfter, deploymentUrl } from '../core/deployments.js';
import { errorView, type OperationError, phaseFailed } from '../core/errors.js';
import { LINES_PER_CHECK, type NewLogLine, platformText, redact } from '../core/operation-logs.js';
import { isTerminal, type OperationRecord, PHASE_MESSAGES, PHASES, workflowInput } from '../core/operations.js';
import {
  type HostingPlatform,
  isPlatformErrorName,
  type JobHandle,
  type JobStatus,
  PlatformError,
  TransientPlatformError,
  type WorkPhase,
} from '../core/platform.js';
import { logger } from '../lib/logger.js';
import { emit } from '../lib/metrics.js';
import { systemChanges } from './change-events.js';
import { openEnv } from './env-secrets.js';

export interface StepInput {
  org_id: string;
  operation_id: string;
  deployment_id: string;
}

/** A step's correlation id on its log lines: the operation it works on (functions/middleware/invocation.ts). */
export const operationOf = (input: StepInput): string => input.operation_id;

/** Thrown into the workflow when its operation already ended (canceled): the workflow then ends quietly (AlreadyEnded). */
export class OperationEnded extends Error {
  constructor(id: string, status: string) {
    super(`Operation ${id} is already ${status}.`);
    this.name = 'OperationEnded';
  }
}

async function load(input: StepInput): Promise<{ op: OperationRecord; deployment: DeploymentRecord }> {
  const [op, deployment] = await Promise.all([
    getOperation(input.org_id, input.operation_id, true),
    getDeployment(input.org_id, input.deployment_id, true),
  ]);
  if (!op || !deployment) throw new Error(`Operation ${input.operation_id} or deployment ${input.deployment_id} not found`);
  return { op, deployment };
}

export interface PhaseInput extends StepInput {
  phase: WorkPhase;
}

/** What the workflow carries from a phase step to the next: the job and when to ask about it again. */
export interface PhaseState {
  handle: JobHandle;
  status: 'running' | 'succeeded';
  next_check_seconds: number;
  /** The least the check after next waits (core/check-schedule.ts); the workflow hands it back. */
  floor_seconds: number;
}

export interface PhaseTiming {
  /** How long a phase may take before the operation fails (PHASE_TIMEOUT_SECONDS). */
  timeoutSeconds: number;
  /** When to ask again about a running job whose driver did not say (PHASE_CHECK_SECONDS). */
  checkSeconds: number;
  now?: () => Date;
}

/** A phase that ran past its limit: the workflow ends the operation OPERATION_TIMED_OUT. */
export class PhaseTimedOut extends Error {
  constructor(phase: string, seconds: number) {
    super(`The ${phase} phase did not finish within ${formatSeconds(seconds)}.`);
    this.name = 'PhaseTimedOut';
  }
}

const formatSeconds = (s: number) => (s % 3600 === 0 ? `${s / 3600} hour${s === 3600 ? '' : 's'}` : `${Math.round(s / 60)} minutes`);

/**
 * Enters a phase (the first one also starts the operation) and starts its job on the
 * platform, recording the job and the phase's deadline on the operation. Run again (a
 * retried step, a resumed workflow), it finds the same job.
 */
export async function startPhase(input: PhaseInput, platform: HostingPlatform, timing: PhaseTiming): Promise<PhaseState> {
  const now = timing.now ?? (() => new Date());
  const { op, deployment } = await withRetries(async () => {
    const loaded = await load(input);
    const { op } = loaded;
    if (isTerminal(op.status)) throw new OperationEnded(op.id, op.status);
    if (op.status === 'running' && op.phase === input.phase) return loaded; // a retried step
    const at = now().toISOString();
    const change = {
      status: 'running' as const,
      phase: input.phase,
      message: PHASE_MESSAGES[input.phase],
      started_at: op.started_at ?? at,
    };
    if (!(await applyTransition({ operation: op, change, at, retries: STEP_RETRIES, events: systemChanges }))) throw new Retry();
    return { ...loaded, op: { ...op, ...change } };
  }, STEP_RETRIES);
  const target = { orgId: op.org_id, deploymentId: deployment.id, appType: deployment.app_type, name: deployment.name };
  // An update's configuration goes to the driver with its secrets opened: only this step can open them.
  const config = op.update && (await openEnv(op.update.config, op.org_id, deployment.id));
  const handle = await platform.start({
    operationId: op.id,
    phase: input.phase,
    target,
    ...(op.params ? { input: op.params } : {}),
    ...(config ? { config } : {}),
  });
  if (op.job?.phase !== input.phase || op.job.handle !== handle) {
    const deadline = new Date(now().getTime() + timing.timeoutSeconds * 1000).toISOString();
    const job = { phase: input.phase, handle, deadline, limit_seconds: timing.timeoutSeconds };
    await withRetries(async () => {
      const current = (await load(input)).op;
      if (isTerminal(current.status)) throw new OperationEnded(current.id, current.status);
      if (
        !(await applyTransition({
          operation: current,
          change: { job },
          at: now().toISOString(),
          retries: STEP_RETRIES,
          events: systemChanges,
        }))
      )
        throw new Retry();
    }, STEP_RETRIES);
  }
  return { handle, status: 'running', next_check_seconds: 0, floor_seconds: CHECK_FLOOR_FIRST_SECONDS };
}

/**
 * Asks the platform about the phase's job. Running: when to ask again (never past the
 * deadline). Succeeded: the workflow goes on. Failed: a PlatformError (or, transient, a
 * TransientPlatformError the workflow retries). Past its deadline: the job is canceled
 * and the phase times out.
 */
export async function checkPhase(
  input: PhaseInput & { handle: JobHandle; floor_seconds?: number },
  platform: HostingPlatform,
  timing: PhaseTiming,
): Promise<PhaseState> {
  const now = timing.now ?? (() => new Date());
  const { op } = await load(input);
  if (isTerminal(op.status)) throw new OperationEnded(op.id, op.status);
  const left = op.job ? Date.parse(op.job.deadline) - now().getTime() : Number.POSITIVE_INFINITY;
  if (left <= 0) {
    await platform.cancel(input.handle);
    throw new PhaseTimedOut(input.phase, op.job?.limit_seconds ?? timing.timeoutSeconds);
  }
  const job = await platform.check(input.handle, { ...(op.job?.log_cursor ? { after: op.job.log_cursor } : {}), limit: LINES_PER_CHECK });
  const secrets = await secretValues(op, job);
  const lines: NewLogLine[] = (job.log?.lines ?? [])
    .slice(0, LINES_PER_CHECK)
    .map((l) => ({ phase: input.phase, level: l.level, message: platformText(l.message, secrets), ...(l.time ? { time: l.time } : {}) }));
  const failure = job.state === 'failed' ? redact(job.message, secrets) : undefined;
  // Each transient failure is a try the workflow makes again (ASL Retry): the log says so.
  if (job.state === 'failed' && job.transient)
    lines.push({ phase: input.phase, level: 'warning', message: `The platform failed transiently; trying again: ${failure}` });
  await recordPlatformLog(input, op, lines, job.log?.cursor, now);
  if (job.state === 'failed') throw job.transient ? new TransientPlatformError(failure ?? '') : new PlatformError(failure ?? '');
  if (job.state === 'succeeded') {
    recordPhaseDuration(op, input.phase, now());
    return { handle: input.handle, status: 'succeeded', next_check_seconds: 0, floor_seconds: CHECK_FLOOR_FIRST_SECONDS };
  }
  const next = nextCheck(job.nextCheckSeconds ?? timing.checkSeconds, input.floor_seconds, left);
  return { handle: input.handle, status: 'running', next_check_seconds: next.seconds, floor_seconds: next.floor };
}

/**
 * How long the platform took over a phase: from its job recorded on the operation (when
 * the phase's deadline was set, startPhase) to the check that found it done.
 */
function recordPhaseDuration(op: OperationRecord, phase: WorkPhase, now: Date): void {
  if (op.job?.phase !== phase) return;
  const entered = Date.parse(op.job.deadline) - op.job.limit_seconds * 1000;
  emit('phaseDuration', { operation_type: op.type, phase }, Math.max(0, (now.getTime() - entered) / 1000));
}

/**
 * The secret env values the job may have seen (decision 41): only an update hands a
 * configuration to the platform, and they are opened only when there is text to search.
 */
async function secretValues(op: OperationRecord, job: JobStatus): Promise<string[]> {
  const config = op.update?.config;
  if (!config || !Object.values(config.env).some((e) => e.secret)) return [];
  if (!job.log?.lines.length && job.state !== 'failed') return [];
  const opened = await openEnv(config, op.org_id, op.resource_id);
  return Object.values(opened.env).flatMap((e) => (e.secret ? [e.value] : []));
}

/**
 * Stores a check's log lines and moves the job's log cursor past them, in one
 * transaction (apply-transition.ts numbers them). A check run again after its lines were
 * stored finds the cursor moved and asks the driver only for later ones.
 */
async function recordPlatformLog(
  input: PhaseInput,
  read: OperationRecord,
  lines: NewLogLine[],
  cursor: string | undefined,
  now: () => Date,
): Promise<void> {
  const moved = cursor !== undefined && cursor !== read.job?.log_cursor;
  if (!lines.length && !moved) return;
  let op = read;
  await withRetries(async () => {
    if (isTerminal(op.status)) throw new OperationEnded(op.id, op.status);
    if (!op.job || op.job.phase !== input.phase) return;
    if (op.job.log_cursor !== read.job?.log_cursor) return; // stored by an earlier try of this check
    const job = moved ? { ...op.job, log_cursor: cursor } : op.job;
    const at = now().toISOString();
    if (!(await applyTransition({ operation: op, change: { job }, lines, at, retries: STEP_RETRIES, events: systemChanges }))) {
      op = (await load(input)).op;
      throw new Retry();
    }
  }, STEP_RETRIES);
}

export async function completeOperation(input: StepInput, appDomain: string, now = () => new Date()): Promise<void> {
  const succeeded = await withRetries(async (): Promise<OperationRecord | undefined> => {
    const { op, deployment } = await load(input);
    if (isTerminal(op.status)) return undefined;
    const at = now().toISOString();
    const done = PHASES[op.type].done;
    // Decision 42: a succeeded update is the deployment's next revision, in the same transaction.
    const applied = op.update && {
      record: deployment,
      revision: {
        org_id: op.org_id,
        deployment_id: deployment.id,
        revision: deployment.revision + 1,
        config: op.update.config,
        created_at: at,
        operation_id: op.id,
        rollback_of: op.update.rollback_of,
      },
    };
    const change = {
      status: 'succeeded' as const,
      phase: done,
      message: PHASE_MESSAGES[done],
      ended_at: at,
      started_at: op.started_at ?? at,
      ...(op.type === 'deployment.create' ? { result: { url: deploymentUrl(deployment, appDomain) } } : {}),
      ...(applied ? { result: { revision: applied.revision.revision } } : {}),
    };
    if (
      !(await applyTransition({
        operation: op,
        change,
        deployment: deploymentMoveAfter('succeeded', op.type, deployment),
        ...(applied ? { applied } : {}),
        at,
        retries: STEP_RETRIES,
        events: systemChanges,
      }))
    )
      throw new Retry();
    return op;
  }, STEP_RETRIES);
  if (succeeded) emit('operationsSucceeded', { operation_type: succeeded.type }, 1);
}

/** The workflow's Catch output: Error name and Cause (on Lambda a JSON string with errorMessage). */
export interface Failure {
  Error?: string;
  Cause?: string;
}

/**
 * What a failed phase tells the client. A platform error's message is written for
 * customers and passes through; anything else (a bug, an AWS permission error naming
 * accounts, roles and tables) is logged here and replaced by a generic message.
 */
function failureMessage(failure: Failure | undefined, op: OperationRecord): string {
  const message = causeMessage(failure?.Cause);
  if (failure?.Error && isPlatformErrorName(failure.Error) && message) return message;
  logger.error('operation step failed unexpectedly', { operation_id: op.id, phase: op.phase, failure });
  return 'The operation failed because of an internal error.';
}

/** The Catch's Cause: on Lambda a JSON string with errorMessage, locally the message itself. */
function causeMessage(cause: string | undefined): string | undefined {
  if (!cause) return undefined;
  try {
    const parsed: unknown = JSON.parse(cause);
    if (parsed && typeof parsed === 'object' && 'errorMessage' in parsed) return String(parsed.errorMessage);
  } catch {
    // a plain message
  }
  return cause;
}

/**
 * Decision 45: whether sending the request again may succeed. A failure that outlasted
 * the workflow's retries (the platform's transient ones, AWS faults) may; a permanent
 * platform failure, or a fault of the service itself, will not by trying again.
 */
const TRANSIENT_FAILURES = ['TransientPlatformError', 'TransientAwsError', 'Retry', 'TransactionRefused'];
const retryableFailure = (name: string | undefined): boolean =>
  name !== undefined && (TRANSIENT_FAILURES.includes(name) || name.startsWith('Lambda.'));

export async function failOperation(input: StepInput & { failure?: Failure }, now = () => new Date()): Promise<void> {
  const timedOut = input.failure?.Error === 'States.Timeout' || input.failure?.Error === 'PhaseTimedOut';
  const error: Omit<OperationError, 'phase'> | undefined = timedOut
    ? { code: 'OPERATION_TIMED_OUT', message: causeMessage(input.failure?.Cause) ?? 'The operation did not finish in time.' }
    : undefined;
  await endFailed(
    input,
    (op) =>
      error ?? {
        code: phaseFailed(op.phase),
        message: failureMessage(input.failure, op),
        retryable: retryableFailure(input.failure?.Error),
      },
    now,
  );
}

/** Ends the operation failed; its error carries the phase it stopped in (decision 45) and, unless told, the retry hint of its code. */
async function endFailed(
  input: StepInput,
  errorFor: (op: OperationRecord) => Omit<OperationError, 'phase'>,
  now: () => Date,
): Promise<boolean> {
  const failed = await withRetries(async (): Promise<OperationRecord | undefined> => {
    const { op, deployment } = await load(input);
    if (isTerminal(op.status)) return undefined;
    const at = now().toISOString();
    const error = errorView({ ...errorFor(op), phase: op.phase }, op.phase);
    const change = { status: 'failed' as const, ended_at: at, error, message: `Failed: ${error.message}` };
    if (
      !(await applyTransition({
        operation: op,
        change,
        deployment: deploymentMoveAfter('failed', op.type, deployment),
        at,
        retries: STEP_RETRIES,
        events: systemChanges,
      }))
    )
      throw new Retry();
    // A failed update leaves the deployment on its configuration: the platform is asked to put it back.
    if (op.type === 'deployment.update' && op.started_at) await restoreConfig(op);
    return op;
  }, STEP_RETRIES);
  if (failed) emit('operationsFailed', { operation_type: failed.type }, 1);
  return failed !== undefined;
}

export interface ReconcileOptions {
  now?: Date;
  /** An operation younger than this may not have its execution yet (records are written first). */
  graceSeconds?: number;
  /** The phase limit: an operation still queued after this long is overdue too. */
  phaseTimeoutSeconds: number;
  /** The driver whose jobs overdue operations leave behind (their jobs are canceled). */
  platform?: HostingPlatform;
  /**
   * Start a workflow that no longer exists again, from the phase its operation is in.
   * Locally, workflows die with the process while their records survive, so the local
   * stack resumes them. On AWS an execution does not vanish by itself (and its name,
   * the operation id, stays taken), so there an orphan is ended instead.
   */
  resumeMissing?: boolean;
}

export interface Reconciled {
  ended: string[];
  resumed: string[];
}

/**
 * Settles operations that cannot finish by themselves: their workflow is gone
 * (resumed, or ended `failed` with OPERATION_INTERRUPTED), or ran past its phase's
 * deadline (stopped and ended OPERATION_TIMED_OUT). Runs on a schedule on AWS and at start-up
 * locally.
 */
export async function reconcileOperations(opts: ReconcileOptions): Promise<Reconciled> {
  const now = opts.now ?? new Date();
  const grace = (opts.graceSeconds ?? 60) * 1000;
  const out: Reconciled = { ended: [], resumed: [] };
  for (const op of await listActiveOperations(1000)) {
    const age = now.getTime() - Date.parse(op.requested_at);
    if (age < grace) continue;
    const state = await describeExecution(op.id);
    // Overdue: past its phase's own deadline, or queued for longer than a phase may take.
    const deadline = op.job ? Date.parse(op.job.deadline) : Date.parse(op.requested_at) + opts.phaseTimeoutSeconds * 1000;
    const overdue = now.getTime() > deadline + grace;
    if (state === 'MISSING' && opts.resumeMissing && !overdue) {
      await startExecution(workflowInput(op));
      out.resumed.push(op.id);
      continue;
    }
    let error: OperationError | undefined;
    if (state !== 'RUNNING') {
      error = {
        code: 'OPERATION_INTERRUPTED',
        message: `The workflow running this operation stopped unexpectedly (${state.toLowerCase()}).`,
      };
    } else if (overdue) {
      await stopExecution(op.id, 'Operation timed out');
      if (op.job) await opts.platform?.cancel(op.job.handle);
      error = { code: 'OPERATION_TIMED_OUT', message: 'The operation did not finish in time.' };
    }
    const input = { org_id: op.org_id, operation_id: op.id, deployment_id: op.resource_id };
    if (
      error &&
      (await endFailed(
        input,
        () => error,
        () => now,
      ))
    )
      out.ended.push(op.id);
  }
  return out;
}
