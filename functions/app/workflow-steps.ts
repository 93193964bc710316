/**
 * The steps of the operation workflow (statemachines/operation.asl.json) that end an
 * operation, and the reconciler; the phase steps are workflow-phases.ts. Each step
 * reads the operation and writes only while it is not terminal, so a cancel or a
 * timeout that ended it first always wins, and a retried step changes nothing twice.
 */

import { errorView, type OperationError, phaseFailed } from '../../contract/errors.js';
import { applyTransition } from '../adapters/dynamo/apply-transition.js';
import { getDeployment } from '../adapters/dynamo/deployment-reads.js';
import { getHealthDetail } from '../adapters/dynamo/health-store.js';
import { getOperation, listActiveOperations } from '../adapters/dynamo/operation-reads.js';
import { Retry, STEP_RETRIES, withRetries } from '../adapters/dynamo/transact.js';
import { restoreConfig } from '../adapters/platform/hosting-platform.js';
import { describeExecution, startExecution, stopExecution } from '../adapters/sfn/executions.js';
import { type DeploymentRecord, deploymentMoveAfter, deploymentUrl, healthOf } from '../core/deployments.js';
import { type HealthDetail, unknownHealth } from '../core/health.js';
import { awakeChange, hibernatedChange, isHibernationType } from '../core/hibernation.js';
import { isTerminal, type OperationRecord, PHASE_MESSAGES, PHASES, workflowInput } from '../core/operations.js';
import { type HostingPlatform, isPlatformErrorName } from '../core/platform.js';
import { logger } from '../lib/logger.js';
import { emit } from '../lib/metrics.js';
import { systemChanges } from './change-events.js';
import { firstCheck } from './deployment-health.js';

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

export async function load(input: StepInput): Promise<{ op: OperationRecord; deployment: DeploymentRecord }> {
  const [op, deployment] = await Promise.all([
    getOperation(input.org_id, input.operation_id, true),
    getDeployment(input.org_id, input.deployment_id, true),
  ]);
  if (!op || !deployment) throw new Error(`Operation ${input.operation_id} or deployment ${input.deployment_id} not found`);
  return { op, deployment };
}

export async function completeOperation(input: StepInput, appDomain: string, now = () => new Date()): Promise<void> {
  const succeeded = await withRetries(async (): Promise<OperationRecord | undefined> => {
    const { op, deployment } = await load(input);
    if (isTerminal(op.status)) return undefined;
    const at = now().toISOString();
    const done = PHASES[op.type].done;
    // A succeeded update is the deployment's next revision, in the same transaction (decision 42).
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
    const move = deploymentMoveAfter('succeeded', op.type, deployment);
    // Decision 48: "ready" carries the result of a first check, made now.
    const health = move?.to === 'ready' ? await firstCheck(deployment, at) : undefined;
    // Decision 50: the record's hibernation changes with the operation's success (a wake's with a first check).
    const hibernation =
      isHibernationType(op.type) && deployment.status === 'ready' ? await hibernationOutcome(op, deployment, at) : undefined;
    if (
      !(await applyTransition({
        operation: op,
        change,
        deployment: move,
        ...(health ? { health } : {}),
        ...(applied ? { applied } : {}),
        ...(hibernation ? { hibernation } : {}),
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

/** What a hibernate's or a wake's success writes on its (ready) deployment and its health item. */
async function hibernationOutcome(op: OperationRecord, d: DeploymentRecord, at: string) {
  const health = await getHealthDetail(d.org_id, d.id);
  const previous: HealthDetail = { ...healthOf(d), checked_at: health?.checked_at ?? null, components: health?.components ?? [] };
  if (op.type === 'deployment.hibernate') return { record: d, ...hibernatedChange(d, previous, at) };
  // Awake: a first check made now, or unknown health until the checker's first visit when none can be made.
  const checked = (await firstCheck({ ...d, health: { status: 'unknown', since: at } }, at)) ?? unknownHealth(at);
  return { record: d, ...awakeChange(d, checked, at) };
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
 * Whether sending the request again may succeed, as a failed operation tells its caller
 * (decision 45). A failure that outlasted the workflow's retries (the platform's transient
 * ones, AWS faults) may; a permanent platform failure, or a fault of the service itself,
 * will not by trying again.
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
