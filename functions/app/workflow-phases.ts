/**
 * The phase steps of the operation workflow (statemachines/operation.asl.json): enter a
 * phase and start its job on the platform, then ask about the job until it is done. Apart
 * from the steps that end an operation (workflow-steps.ts), as only these open a
 * deployment's env secrets (KMS). Like them, each reads the operation and writes only
 * while it is not terminal.
 */
import { applyTransition } from '../adapters/dynamo/apply-transition.js';
import { Retry, STEP_RETRIES, withRetries } from '../adapters/dynamo/transact.js';
import { CHECK_FLOOR_FIRST_SECONDS, nextCheck } from '../core/check-schedule.js';
import type { StoredConfig } from '../core/deployment-config.js';
import { LINES_PER_CHECK, type NewLogLine, platformText, redact } from '../core/operation-logs.js';
import { isTerminal, type OperationRecord, PHASE_MESSAGES } from '../core/operations.js';
import {
  type HostingPlatform,
  isPlatformErrorName,
  type JobHandle,
  type JobStatus,
  type PlatformConfig,
  PlatformError,
  TransientPlatformError,
  type WorkPhase,
} from '../core/platform.js';
import { logger } from '../lib/logger.js';
import { emit } from '../lib/metrics.js';
import { systemChanges } from './change-events.js';
import { openEnv } from './env-secrets.js';
import { openInput } from './operation-input.js';
import { load, OperationEnded, type StepInput } from './workflow-steps.js';

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
  // The configuration to run goes to the driver with its secrets opened: only this step can open them.
  const toRun = configToRun(op, deployment.config);
  const config = toRun && (await openEnv(toRun, op.org_id, deployment.id));
  // So is an app user's password (decision 256): opened here for the job, and for nothing else.
  const sealed = await openInput(op);
  const jobIn = op.params || op.sealed_input ? { ...op.params, ...sealed } : undefined;
  const handle = await platform
    .start({ operationId: op.id, phase: input.phase, target, ...(jobIn ? { input: jobIn } : {}), ...(config ? { config } : {}) })
    .catch((e: unknown) => {
      // A driver's message is shown to the customer: never with a secret it was handed.
      if (e instanceof Error && isPlatformErrorName(e.name)) e.message = redact(e.message, handedSecrets(sealed, config));
      throw e;
    });
  if (op.job?.phase !== input.phase || op.job.handle !== handle) {
    const deadline = new Date(now().getTime() + timing.timeoutSeconds * 1000).toISOString();
    const job = { phase: input.phase, handle, deadline, limit_seconds: timing.timeoutSeconds };
    await withRetries(async () => {
      const current = (await load(input)).op;
      if (isTerminal(current.status)) {
        // Ended while this job was starting: its cancel found no job on the operation to stop, so this step stops it (decision 331).
        await platform
          .cancel(handle)
          .catch((e: unknown) => logger.warn('could not cancel the job of an ended operation', { error: e as Error }));
        throw new OperationEnded(current.id, current.status);
      }
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
  const { op, deployment } = await load(input);
  if (isTerminal(op.status)) throw new OperationEnded(op.id, op.status);
  const left = op.job ? Date.parse(op.job.deadline) - now().getTime() : Number.POSITIVE_INFINITY;
  if (left <= 0) {
    await platform.cancel(input.handle);
    throw new PhaseTimedOut(input.phase, op.job?.limit_seconds ?? timing.timeoutSeconds);
  }
  const job = await platform.check(input.handle, { ...(op.job?.log_cursor ? { after: op.job.log_cursor } : {}), limit: LINES_PER_CHECK });
  const secrets = await secretValues(op, job, deployment);
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
  // The phase began when its job was recorded: its deadline less its limit.
  const elapsed = op.job ? now().getTime() - (Date.parse(op.job.deadline) - op.job.limit_seconds * 1000) : undefined;
  const next = nextCheck(job.nextCheckSeconds ?? timing.checkSeconds, input.floor_seconds, left, elapsed);
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
async function secretValues(op: OperationRecord, job: JobStatus, deployment: { config: StoredConfig }): Promise<string[]> {
  if (!job.log?.lines.length && job.state !== 'failed') return [];
  const config = configToRun(op, deployment.config);
  const opened = config && Object.values(config.env).some((e) => e.secret) ? await openEnv(config, op.org_id, op.resource_id) : undefined;
  // And the operation's sealed input (an app user's password, decision 256), while it has one.
  return handedSecrets(op.sealed_input ? await openInput(op) : undefined, opened);
}

/**
 * The configuration a job runs: an update's new one, or a create's (its deployment's
 * first), which the platform needs to start the application at all.
 */
const configToRun = (op: OperationRecord, current: StoredConfig): StoredConfig | undefined =>
  op.update?.config ?? (op.type === 'deployment.create' ? current : undefined);

/** The secrets a job was handed: its configuration's secret env values and its sealed input opened. */
function handedSecrets(sealed: Record<string, string> | undefined, config: PlatformConfig | undefined): string[] {
  const env = Object.values(config?.env ?? {}).flatMap((e) => (e.secret ? [e.value] : []));
  return [...env, ...Object.values(sealed ?? {})];
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
