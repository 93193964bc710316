/** Waiting for an operation with its progress on stderr, and the exit code its outcome gives. */

import { printable } from '../../cli-kit/text.js';
import type { Operation, OperationLogLine } from '../client.js';
import { ErrorResponse, formatDuration } from '../errors.js';
import { type Clock, type FallbackInfo, type ProgressInfo, type RetryInfo, waitForOperation } from '../wait.js';
import type { WaitLimit } from './args.js';
import type { Run } from './command.js';
import { type CliContext, EXIT, err } from './context.js';

/** The command that watches an operation again. */
export const watchCommand = (operationId: string) => `deployctl operations wait ${operationId}`;

/** A wait stopped by Ctrl-C (the context's signal): the operation itself was left alone. */
export class WaitInterrupted extends Error {
  override readonly name = 'WaitInterrupted';
  constructor(
    readonly operationId: string,
    /** The operation as last seen, if any answer came. */
    readonly lastSeen: Operation | undefined,
    options?: { cause?: unknown },
  ) {
    super(`Stopped waiting for operation ${operationId}.`, options);
  }
}

/**
 * The live progress of a wait, on stderr: on a terminal a spinner line redrawn in place
 * with the elapsed time; otherwise one plain line per change of status or phase, as it happens.
 */
class ProgressView {
  private static readonly FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  private frame = 0;
  private text = 'waiting for the first poll';
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly started: number;

  constructor(
    private readonly ctx: CliContext,
    private readonly clock: Clock,
    private readonly label: string,
  ) {
    this.started = clock.now();
    if (ctx.stderr.isTTY) {
      this.draw();
      this.timer = setInterval(() => this.draw(), 100);
      this.timer.unref?.();
    } else {
      err(ctx, `${this.stamp()} ${label}: waiting`);
    }
  }

  private stamp(): string {
    return `[${formatDuration(this.clock.now() - this.started).padStart(6)}]`;
  }

  private draw(): void {
    const spin = ProgressView.FRAMES[this.frame++ % ProgressView.FRAMES.length];
    const elapsed = ` (${formatDuration(this.clock.now() - this.started)})`;
    let line = printable(`${spin} ${this.label}: ${this.text}`);
    // A line longer than the terminal wraps, and \r then redraws only its last part.
    const room = (this.ctx.stderr.columns ?? 0) - 1 - elapsed.length;
    if (room > 10 && line.length > room) line = `${line.slice(0, room - 1)}…`;
    this.ctx.stderr.write(`\r\x1b[2K${line}${elapsed}`);
  }

  progress(op: Operation, info: Pick<ProgressInfo, 'changed'>): void {
    this.text = `${op.status} · ${op.progress.phase} · ${op.progress.message}`;
    if (this.ctx.stderr.isTTY) this.draw();
    else if (info.changed) err(this.ctx, `${this.stamp()} ${op.status} ${op.progress.phase}: ${op.progress.message}`);
  }

  fallback(info: FallbackInfo): void {
    const text = `the API cannot wait (${info.error.status} ${info.error.code}); polling instead`;
    if (this.ctx.stderr.isTTY) {
      this.text = text;
      this.draw();
    } else err(this.ctx, `${this.stamp()} ${text}`);
  }

  retry(info: RetryInfo): void {
    const why = info.error instanceof ErrorResponse ? `${info.error.status} ${info.error.code}` : info.error.reason;
    const text = `retrying in ${formatDuration(info.delayMs)} (${why})`;
    if (this.ctx.stderr.isTTY) {
      this.text = text;
      this.draw();
    } else err(this.ctx, `${this.stamp()} ${text}`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.ctx.stderr.isTTY) this.ctx.stderr.write('\r\x1b[2K');
  }
}

/**
 * Waits for an operation, showing progress; returns the terminal operation. Throws
 * WaitInterrupted when the context's signal stops it (the operation goes on), and
 * OperationTimeoutError when --timeout runs out (there is no limit without it).
 */
export async function follow(r: Run, operationId: string, label: string, limit: WaitLimit): Promise<Operation> {
  const view = new ProgressView(r.ctx, r.clock, label);
  let last: Operation | undefined;
  try {
    return await waitForOperation(r.api, operationId, {
      clock: r.clock,
      random: r.ctx.random,
      signal: r.ctx.signal,
      timeoutMs: limit.timeoutMs,
      onProgress: (op, info) => {
        last = op;
        view.progress(op, info);
      },
      onRetry: (info) => view.retry(info),
      onFallback: (info) => view.fallback(info),
    });
  } catch (e) {
    if (r.ctx.signal?.aborted) throw new WaitInterrupted(operationId, last, { cause: e });
    throw e;
  } finally {
    view.stop();
  }
}

/**
 * 0 for a succeeded operation; otherwise says why on stderr (decision 45: the phase,
 * whether sending the request again may help, the last lines of its log) and gives 1
 * for a failed operation, 4 for a canceled one.
 */
export async function operationOutcome(r: Run, op: Operation): Promise<number> {
  if (op.status === 'succeeded') return EXIT.ok;
  await explainEnd(r, op);
  return op.status === 'canceled' ? EXIT.operationCanceled : EXIT.operationFailed;
}

/** How many of the last log lines a failure shows. */
const LAST_LINES = 5;

/** What a failed or canceled operation tells on stderr; nothing for another status. */
export async function explainEnd(r: Run, op: Operation): Promise<void> {
  if (op.status !== 'failed' && op.status !== 'canceled') return;
  const why = op.error ? `${op.error.code}: ${op.error.message}` : op.progress.message;
  const phase = op.error?.phase ?? op.progress.phase;
  err(r.ctx, `Operation ${op.id} ${op.status} in phase ${phase}: ${why}`);
  if (op.error?.retryable !== undefined)
    err(
      r.ctx,
      op.error.retryable
        ? 'Retry: sending the same request again may succeed.'
        : 'Retry: sending the same request again will fail the same way.',
    );
  const lines = await lastLogLines(r, op.id);
  if (lines.length) err(r.ctx, `Last log lines (deployctl operations logs ${op.id}):\n${lines.map(logLine).join('\n')}`);
}

/** The last lines of the log, or none when they cannot be read (an older server): the outcome is told anyway. */
async function lastLogLines(r: Run, id: string): Promise<OperationLogLine[]> {
  try {
    const first = await r.api.listOperationLogs(id, { per_page: LAST_LINES });
    const pages = first.pagination?.pages ?? 0;
    const last = pages > 1 ? await r.api.listOperationLogs(id, { page: pages, per_page: LAST_LINES }) : first;
    const before =
      pages > 1 && last.items.length < LAST_LINES
        ? await r.api.listOperationLogs(id, { page: pages - 1, per_page: LAST_LINES })
        : undefined;
    const all = [...(Array.isArray(before?.items) ? before.items : []), ...(Array.isArray(last.items) ? last.items : [])];
    return all.slice(-LAST_LINES);
  } catch {
    return [];
  }
}

/** One log line as the CLI prints it (out and err make its text safe for a terminal). */
export const logLine = (l: OperationLogLine): string =>
  `${String(l.sequence).padStart(4)} ${l.time} ${l.level.padEnd(7)} ${l.phase}: ${l.message}`;
