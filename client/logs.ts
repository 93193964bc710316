/**
 * Following an operation's log (decision 45; docs/client.md): every line from the one
 * after `after`, oldest first, until the operation has ended and its last line is read.
 *
 * Sequences are dense, so line n is on page ⌈n / perPage⌉: after a dropped connection,
 * a 5xx or a 429, the follower backs off (as waitForOperation does) and reads again from
 * the line after the last it yielded, never yielding a line twice. Between reads it holds
 * a wait request (GET /operations/{id}/wait, which answers early when the phase changes)
 * for 1 s, growing by half up to 5 s while nothing new arrives: no busy loop.
 */
import type { Operation, OperationLogLine } from '../contract/schemas.js';
import type { DeploymentsClient } from './client.js';
import { ErrorResponse, NetworkError } from './errors.js';
import { type Clock, isTerminal, isWaitUnsupported, realClock } from './wait.js';

export interface FollowLogOptions {
  /** Start after this sequence (0, the default, starts at the first line). */
  after?: number;
  /** Lines per request (1-100, default 100). */
  perPage?: number;
  /** Seconds of the first wait between reads, and the most it grows to (defaults 1 and 5). */
  minWaitSeconds?: number;
  maxWaitSeconds?: number;
  clock?: Clock;
  random?: () => number;
  signal?: AbortSignal;
  /** Each failure that will be retried, and how long until the next try. */
  onRetry?: (error: ErrorResponse | NetworkError, delayMs: number) => void;
  /** The operation as last read: once the iterator is done, its final state. */
  onOperation?: (op: Operation) => void;
}

type LogClient = Pick<DeploymentsClient, 'listOperationLogs' | 'getOperation' | 'waitOperation'>;

const retryable = (e: unknown): e is ErrorResponse | NetworkError =>
  e instanceof NetworkError || (e instanceof ErrorResponse && (e.status >= 500 || e.status === 429));

export async function* followOperationLogs(
  client: LogClient,
  operationId: string,
  opts: FollowLogOptions = {},
): AsyncGenerator<OperationLogLine, Operation, void> {
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  const perPage = Math.min(100, Math.max(1, Math.floor(opts.perPage ?? 100)));
  const minWait = opts.minWaitSeconds ?? 1;
  const maxWait = opts.maxWaitSeconds ?? 5;
  const signal = opts.signal;
  let after = opts.after ?? 0;
  let waitSeconds = minWait;
  let useWait = true;
  let failures = 0;
  let op: Operation | undefined;

  for (;;) {
    signal?.throwIfAborted();
    try {
      // The status first: a terminal operation's lines are all written with it, so the reads after it see the last one.
      op = op && !isTerminal(op) && useWait ? op : await client.getOperation(operationId, { signal });
      opts.onOperation?.(op);
      const ended = isTerminal(op);
      let fresh = 0;
      for (;;) {
        const page = await client.listOperationLogs(operationId, { page: Math.floor(after / perPage) + 1, per_page: perPage }, { signal });
        for (const line of page.items) {
          if (line.sequence <= after) continue;
          after = line.sequence;
          fresh++;
          yield line;
        }
        if (page.pagination.page >= page.pagination.pages || page.items.length === 0) break;
      }
      failures = 0;
      if (ended) return op;
      waitSeconds = fresh ? minWait : Math.min(maxWait, Math.ceil(waitSeconds * 1.5));
      if (useWait) {
        try {
          op = await client.waitOperation(operationId, { phase: op.progress.phase, timeout: waitSeconds }, { signal });
        } catch (e) {
          if (!isWaitUnsupported(e)) throw e;
          useWait = false;
        }
      }
      if (!useWait) await clock.sleep(waitSeconds * 1000, signal);
    } catch (e) {
      if (signal?.aborted || !retryable(e)) throw e;
      failures++;
      const full = Math.min(30_000, 1000 * 2 ** (failures - 1));
      const delay =
        e instanceof ErrorResponse && e.status === 429 && e.retryAfter !== undefined
          ? e.retryAfter * 1000
          : Math.round(full / 2 + (random() * full) / 2);
      opts.onRetry?.(e, delay);
      op = undefined;
      await clock.sleep(delay, signal);
    }
  }
}
