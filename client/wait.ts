/**
 * Waiting for an operation to reach a terminal status (decision 36; docs/api.md, sections 9 and 11).
 *
 * First one GET /operations/{id}, at once, for the state it is in; then
 * GET /operations/{id}/wait?phase=<last phase seen>&timeout=20 in a loop, so each answer
 * comes as the phase changes (or after 20 s with nothing new) and every change is reported
 * as it happens. Never two requests less than a second apart. After a 5xx or a network
 * failure (a dropped connection too) back off exponentially with jitter, 1 s up to 30 s,
 * and wait again; after a 429 wait Retry-After. A server without the wait route
 * (404 NOT_FOUND, 405, 400) is polled instead, for the rest of that wait, at 2 s, 3 s, 4.5 s,
 * then every 5 s (or its Retry-After). No deadline unless one is given. Time and jitter are
 * injectable, so tests run in virtual time.
 */
import { WAIT_TIMEOUT_SECONDS } from '../contract/limits.js';
import type { Operation } from '../contract/schemas.js';
import { TERMINAL_OPERATION_STATUSES } from '../contract/vocabulary.js';
import { type DeploymentsClient, retryAfterOf } from './client.js';
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

export interface ProgressInfo {
  /** Since the call. */
  elapsedMs: number;
  /** Answers so far (this one included). */
  polls: number;
  /** The first answer, or status or phase differ from the previous answer's. */
  changed: boolean;
  /** The operation as the answer before this one showed it. */
  previous: Operation | undefined;
  /** How this answer was asked for: the wait route, or a plain GET (the first request, and every poll after a fallback). */
  via: 'wait' | 'get';
}

export interface FallbackInfo {
  /** The wait route's answer that made the waiter poll instead. */
  error: ErrorResponse;
  /** How long until the next poll. */
  delayMs: number;
}

export interface WaitOptions {
  /** Give up after this long (ms) with OperationTimeoutError. Default: no deadline. */
  timeoutMs?: number;
  /** Use GET /operations/{id}/wait (default true); false polls GET /operations/{id} only. */
  useWaitRoute?: boolean;
  /** The `timeout` of each wait request, in seconds (1-20). Default 20. The client's requestTimeoutMs must be longer. */
  waitSeconds?: number;
  /** Before the first request. Default 0 (2000 when useWaitRoute is false, as docs/api.md, section 11, asks of polling). */
  initialDelayMs?: number;
  /** Polling (without the wait route): the first interval. Default 2000. */
  pollIntervalMs?: number;
  /** Polling: the interval grows by `backoffFactor` after each poll up to this. Default 5000. */
  maxIntervalMs?: number;
  /** Polling: default 1.5, so 2 s, 3 s, 4.5 s, 5 s, 5 s... */
  backoffFactor?: number;
  /** Never two requests closer than this. Default 1000 (the API's maximum polling rate). */
  minGapMs?: number;
  /**
   * After the n-th consecutive 5xx or network failure wait errorBaseDelayMs × 2^(n-1), at most
   * maxErrorDelayMs, of which a random part (jitter) of up to half. Defaults 1000, 30000.
   */
  errorBaseDelayMs?: number;
  maxErrorDelayMs?: number;
  /** For the jitter: a number in [0, 1). Default Math.random. */
  random?: () => number;
  clock?: Clock;
  /** Aborting it stops the wait (the operation goes on); the wait rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Each answer (for progress displays); `info.changed` tells the changes of status or phase. */
  onProgress?: (op: Operation, info: ProgressInfo) => void;
  /** Each failure that will be retried. */
  onRetry?: (info: RetryInfo) => void;
  /** The server has no wait route: polling from now on. */
  onFallback?: (info: FallbackInfo) => void;
}

/** The most a wait request may hold (the API's limit, limits.ts). */
export const MAX_WAIT_SECONDS = WAIT_TIMEOUT_SECONDS.max;

/** The client the waiter needs: any DeploymentsClient. */
export type WaitClient = Pick<DeploymentsClient, 'call'>;

/** An answer of the wait route that says the server cannot wait (no such route, method, or query), so polling will do. */
export function isWaitUnsupported(e: unknown): e is ErrorResponse {
  if (!(e instanceof ErrorResponse)) return false;
  if (e.status === 405) return true;
  if (e.status === 404) return e.code !== 'OPERATION_NOT_FOUND';
  return e.status === 400 && e.code === 'INVALID_REQUEST';
}

const retryable = (e: unknown): e is ErrorResponse | NetworkError =>
  e instanceof NetworkError || (e instanceof ErrorResponse && (e.status >= 500 || e.status === 429));

/**
 * Waits until the operation is succeeded, failed or canceled and returns it (a failed or
 * canceled operation is returned, not thrown). Throws OperationTimeoutError when a given
 * `timeoutMs` runs out, ErrorResponse at once for answers a retry cannot fix (404
 * OPERATION_NOT_FOUND, 401, 403...), and the signal's reason when it is aborted.
 */
export async function waitForOperation(client: WaitClient, operationId: string, opts: WaitOptions = {}): Promise<Operation> {
  const clock = opts.clock ?? realClock;
  const random = opts.random ?? Math.random;
  const signal = opts.signal;
  const waitSeconds = Math.min(MAX_WAIT_SECONDS, Math.max(1, Math.floor(opts.waitSeconds ?? MAX_WAIT_SECONDS)));
  const firstInterval = opts.pollIntervalMs ?? 2000;
  const maxInterval = opts.maxIntervalMs ?? 5000;
  const factor = opts.backoffFactor ?? 1.5;
  const minGap = opts.minGapMs ?? 1000;
  const errorBase = opts.errorBaseDelayMs ?? 1000;
  const maxErrorDelay = opts.maxErrorDelayMs ?? 30_000;
  let useWait = opts.useWaitRoute ?? true;

  const start = clock.now();
  const deadline = opts.timeoutMs === undefined ? Number.POSITIVE_INFINITY : start + opts.timeoutMs;
  const params = { operation_id: operationId };
  /** Until the next request (before the one-per-second floor). */
  let delay = opts.initialDelayMs ?? (useWait ? 0 : firstInterval);
  let interval = firstInterval;
  let lastRequestAt = Number.NEGATIVE_INFINITY;
  let failures = 0;
  let polls = 0;
  let last: Operation | undefined;

  const timedOut = () => new OperationTimeoutError(operationId, clock.now() - start, last);
  const backoff = () => {
    const full = Math.min(maxErrorDelay, errorBase * 2 ** (failures - 1));
    return Math.round(full / 2 + (random() * full) / 2);
  };

  for (;;) {
    signal?.throwIfAborted();
    let at = Math.max(clock.now() + delay, lastRequestAt + minGap);
    if (at > deadline) {
      // A last look at the deadline itself, when that keeps to the one-per-second floor.
      const lastLook = clock.now() < deadline && deadline - lastRequestAt >= minGap;
      if (!lastLook) {
        if (clock.now() < deadline) await clock.sleep(deadline - clock.now(), signal);
        throw timedOut();
      }
      at = deadline;
    }
    await clock.sleep(Math.max(0, at - clock.now()), signal);
    lastRequestAt = clock.now();
    // Each wait holds no longer than the deadline allows; with less than a second left, one plain look.
    const seconds = Math.min(waitSeconds, Math.floor((deadline - lastRequestAt) / 1000));
    const waiting = useWait && last !== undefined && seconds >= 1;
    try {
      let op: Operation;
      let retryAfter: number | undefined;
      if (waiting) {
        const res = await client.call('waitOperation', { params, query: { phase: last!.progress.phase, timeout: seconds }, signal });
        op = res.data;
      } else {
        const res = await client.call('getOperation', { params, signal });
        op = res.data;
        retryAfter = retryAfterOf(res.headers);
      }
      polls++;
      failures = 0;
      const previous = last;
      last = op;
      const changed = !previous || previous.status !== op.status || previous.progress.phase !== op.progress.phase;
      opts.onProgress?.(op, { elapsedMs: clock.now() - start, polls, changed, previous, via: waiting ? 'wait' : 'get' });
      if (isTerminal(op)) return op;
      if (useWait) delay = 0;
      else {
        interval = Math.min(maxInterval, interval * factor);
        delay = retryAfter !== undefined ? retryAfter * 1000 : interval;
      }
    } catch (e) {
      if (signal?.aborted) throw e;
      if (waiting && isWaitUnsupported(e)) {
        useWait = false;
        failures = 0;
        delay = e.retryAfter !== undefined ? e.retryAfter * 1000 : interval;
        opts.onFallback?.({ error: e, delayMs: Math.max(delay, lastRequestAt + minGap - clock.now()) });
        continue;
      }
      if (!retryable(e)) throw e;
      if (e instanceof ErrorResponse && e.status === 429 && e.retryAfter !== undefined) delay = e.retryAfter * 1000;
      else {
        failures++;
        delay = backoff();
      }
      opts.onRetry?.({ error: e, delayMs: Math.max(delay, lastRequestAt + minGap - clock.now()), failures });
    }
  }
}
