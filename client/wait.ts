/**
 * Polling an operation to a terminal status, by the rules of the interface (4.9, 8):
 * the first poll after 2 s, then intervals growing to 5 s; never more than one request
 * per second; after a 429 wait Retry-After; after a 5xx or a network failure back off
 * exponentially; give up after 30 minutes. Time is injectable, so tests run in virtual time.
 */
import { type Operation, TERMINAL_OPERATION_STATUSES } from '../functions/core/schemas.js';
import type { DeploymentsClient } from './client.js';
import { ErrorResponse, NetworkError, OperationTimeoutError } from './errors.js';

export const isTerminal = (op: Pick<Operation, 'status'>): boolean =>
  (TERMINAL_OPERATION_STATUSES as readonly Operation['status'][]).includes(op.status);

export interface Clock {
  /** Milliseconds (Date.now() by default). */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

export interface RetryInfo {
  error: ErrorResponse | NetworkError;
  /** How long until the next request. */
  delayMs: number;
  /** Consecutive failures so far. */
  failures: number;
}

export interface WaitOptions {
  /** Give up after this long (ms). Default 30 minutes. */
  timeoutMs?: number;
  /** Before the first poll. Default 2000. */
  initialDelayMs?: number;
  /** The interval grows by `backoffFactor` after each poll up to this. Default 5000. */
  maxIntervalMs?: number;
  /** Default 1.5: 2 s, 3 s, 4.5 s, 5 s, 5 s... */
  backoffFactor?: number;
  /** Never two requests closer than this. Default 1000 (the API's maximum polling rate). */
  minGapMs?: number;
  /** After the n-th consecutive 5xx or network failure wait errorBaseDelayMs × 2^(n-1), at most maxErrorDelayMs. Defaults 2000, 60000. */
  errorBaseDelayMs?: number;
  maxErrorDelayMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
  /** Each operation seen (for progress displays). */
  onProgress?: (op: Operation, info: { elapsedMs: number; polls: number }) => void;
  /** Each failure that will be retried. */
  onRetry?: (info: RetryInfo) => void;
}

export const DEFAULT_WAIT_TIMEOUT_MS = 30 * 60 * 1000;

/**
 * Polls GET /operations/{id} until the operation is succeeded, failed or canceled and
 * returns it (a failed or canceled operation is returned, not thrown). Throws
 * OperationTimeoutError on timeout, and ErrorResponse at once for answers a retry cannot fix
 * (404, 401, 403...).
 */
export async function waitForOperation(
  client: Pick<DeploymentsClient, 'getOperation'>,
  operationId: string,
  opts: WaitOptions = {},
): Promise<Operation> {
  const clock = opts.clock ?? realClock;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const maxInterval = opts.maxIntervalMs ?? 5000;
  const factor = opts.backoffFactor ?? 1.5;
  const minGap = opts.minGapMs ?? 1000;
  const errorBase = opts.errorBaseDelayMs ?? 2000;
  const maxErrorDelay = opts.maxErrorDelayMs ?? 60_000;

  const start = clock.now();
  const deadline = start + timeoutMs;
  let interval = opts.initialDelayMs ?? 2000;
  let wait = interval;
  let lastRequestAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let polls = 0;
  let last: Operation | undefined;

  for (;;) {
    opts.signal?.throwIfAborted();
    let at = Math.max(clock.now() + wait, lastRequestAt + minGap);
    if (at > deadline) {
      const lastLook = clock.now() < deadline && deadline - lastRequestAt >= minGap;
      if (!lastLook) {
        if (clock.now() < deadline) await clock.sleep(deadline - clock.now(), opts.signal);
        throw new OperationTimeoutError(operationId, clock.now() - start, last);
      }
      at = deadline; // one last look at the deadline
    }
    await clock.sleep(Math.max(0, at - clock.now()), opts.signal);
    lastRequestAt = clock.now();
    try {
      const op = await client.getOperation(operationId, { signal: opts.signal });
      polls++;
      failures = 0;
      last = op;
      opts.onProgress?.(op, { elapsedMs: clock.now() - start, polls });
      if (isTerminal(op)) return op;
      interval = Math.min(maxInterval, interval * factor);
      wait = interval;
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      if (e instanceof ErrorResponse && e.status === 429 && e.retryAfter !== undefined) {
        wait = e.retryAfter * 1000;
      } else if (e instanceof NetworkError || (e instanceof ErrorResponse && (e.status >= 500 || e.status === 429))) {
        failures++;
        wait = Math.min(maxErrorDelay, errorBase * 2 ** (failures - 1));
      } else {
        throw e;
      }
      opts.onRetry?.({ error: e, delayMs: Math.max(wait, lastRequestAt + minGap - clock.now()), failures });
    }
  }
}
