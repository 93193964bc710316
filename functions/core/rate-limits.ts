/**
 * Rate limits (decision 32) in clock windows: per key, requests per clock hour and per
 * clock minute; per organization, deployment creations per clock hour. The counting
 * itself is an atomic conditional update in the adapter; this module is the arithmetic.
 */
import { apiError } from '../../contract/errors.js';
import { AUTH_FAILURE_WINDOW_SECONDS, WAIT_RETRY_AFTER_SECONDS } from '../../contract/limits.js';

// The reasons and the published windows are the contract's (vocabulary.ts, limits.ts).
export { LIMIT_REASONS, type LimitReason } from '../../contract/vocabulary.js';
export { AUTH_FAILURE_WINDOW_SECONDS, WAIT_RETRY_AFTER_SECONDS };

export interface Limits {
  perHour: number;
  perMinute: number;
  createsPerHour: number;
}

export interface Windows {
  /** Epoch seconds at the start of the clock hour, and at the next hour and minute. */
  hourStart: number;
  nextHour: number;
  nextMinute: number;
  /** 0-59: which minute of the hour, so both windows fit in one item. */
  minuteOfHour: number;
}

export function windowsAt(now: Date): Windows {
  const s = Math.floor(now.getTime() / 1000);
  const hourStart = s - (s % 3600);
  return { hourStart, nextHour: hourStart + 3600, nextMinute: s - (s % 60) + 60, minuteOfHour: Math.floor((s % 3600) / 60) };
}

/** Whole seconds from now until an epoch-second boundary, at least 1. */
export const secondsUntil = (now: Date, epochSeconds: number): number =>
  Math.max(1, Math.ceil((epochSeconds * 1000 - now.getTime()) / 1000));

export interface Usage {
  /** Requests counted in this clock hour and minute, this one included. */
  hour: number;
  minute: number;
}

/** The headers on every response to an accepted key: the hourly window (decision 3) and the IETF draft fields. */
export function rateLimitHeaders(limits: Limits, usage: Usage, now: Date): Record<string, string> {
  const w = windowsAt(now);
  const hourLeft = Math.max(0, limits.perHour - usage.hour);
  const minuteLeft = Math.max(0, limits.perMinute - usage.minute);
  return {
    'X-RateLimit-Limit': String(limits.perHour),
    'X-RateLimit-Remaining': String(hourLeft),
    'X-RateLimit-Reset': String(w.nextHour),
    'RateLimit-Policy': `"hourly";q=${limits.perHour};w=3600, "burst";q=${limits.perMinute};w=60, "creations";q=${limits.createsPerHour};w=3600`,
    RateLimit: `"hourly";r=${hourLeft};t=${secondsUntil(now, w.nextHour)}, "burst";r=${minuteLeft};t=${secondsUntil(now, w.nextMinute)}`,
  };
}

export type LimitName = 'hourly' | 'burst' | 'creations';

/** Who a request's windows count: an API key (decision 32), or a dashboard user (decision 232). */
export type Counted = 'API key' | 'user';

const describe: Record<LimitName, (l: Limits, who: Counted) => string> = {
  hourly: (l, who) => `the limit of ${l.perHour} requests per hour for this ${who}`,
  burst: (l, who) => `the burst limit of ${l.perMinute} requests per minute for this ${who}`,
  creations: (l) => `the limit of ${l.createsPerHour} deployment creations per hour for this organization`,
};

/**
 * The 429 for a limit: Retry-After runs to the end of the window that was exceeded.
 * The middleware adds these headers over the per-key ones it already has, if any.
 */
export function limitExceeded(which: LimitName, limits: Limits, now: Date, usage?: Usage, who: Counted = 'API key') {
  const w = windowsAt(now);
  const retryAfter = secondsUntil(now, which === 'burst' ? w.nextMinute : w.nextHour);
  const headers = {
    ...(usage ? rateLimitHeaders(limits, usage, now) : {}),
    'X-RateLimit-Remaining': '0',
    'Retry-After': String(retryAfter),
  };
  return apiError('RATE_LIMIT_EXCEEDED', { limit: describe[which](limits, who), retryAfter }, { headers, limit: which });
}

/** The 429 for a request that found a window full: the hourly one when both are (the longer wait). */
export const windowFull = (limits: Limits, usage: Usage, now: Date, who: Counted = 'API key') =>
  limitExceeded(usage.hour >= limits.perHour ? 'hourly' : 'burst', limits, now, usage, who);

export function authFailureWindow(now: Date): { start: number; end: number } {
  const s = Math.floor(now.getTime() / 1000);
  const start = s - (s % AUTH_FAILURE_WINDOW_SECONDS);
  return { start, end: start + AUTH_FAILURE_WINDOW_SECONDS };
}

/** The 429 for an address over its limit of failed authentications, until its window ends. */
export function tooManyAuthFailures(limit: number, now: Date, windowEnd: number) {
  const retryAfter = secondsUntil(now, windowEnd);
  const minutes = AUTH_FAILURE_WINDOW_SECONDS / 60;
  return apiError(
    'RATE_LIMIT_EXCEEDED',
    { limit: `the limit of ${limit} requests with an unknown API key per ${minutes} minutes from this address`, retryAfter },
    // The key's own windows are unknown here: the headers describe the limit that was exceeded.
    {
      headers: {
        'Retry-After': String(retryAfter),
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(windowEnd),
      },
      limit: 'auth_failures',
    },
  );
}

/** 429 for a wait beyond the organization's concurrent waits (app/wait-for-operation.ts). */
export function tooManyWaits(limit: number) {
  return apiError(
    'RATE_LIMIT_EXCEEDED',
    { limit: `the limit of ${limit} concurrent operation waits per organization`, retryAfter: WAIT_RETRY_AFTER_SECONDS },
    { headers: { 'Retry-After': String(WAIT_RETRY_AFTER_SECONDS), 'X-RateLimit-Remaining': '0' }, limit: 'waits' },
  );
}
