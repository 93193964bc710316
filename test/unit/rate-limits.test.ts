/**
 * Rate-limit arithmetic (functions/core/rate-limits.ts, decision 32) on its own: clock
 * windows, the headers of an accepted request, and the 429s with their Retry-After, over
 * generated instants (fast-check). test/integration/rate-limits.test.ts counts real
 * requests in the table; this is what it counts with.
 */
import fc from 'fast-check';
import {
  AUTH_FAILURE_WINDOW_SECONDS,
  authFailureWindow,
  type Limits,
  limitExceeded,
  rateLimitHeaders,
  secondsUntil,
  tooManyAuthFailures,
  tooManyWaits,
  WAIT_RETRY_AFTER_SECONDS,
  windowFull,
  windowsAt,
} from '../../functions/core/rate-limits.js';

const LIMITS: Limits = { perHour: 1000, perMinute: 100, createsPerHour: 10 };
// Instants from 2020 to 2040, to the millisecond.
const instant = fc.integer({ min: 1_577_836_800_000, max: 2_208_988_800_000 }).map((ms) => new Date(ms));

describe('clock windows, at any instant', () => {
  it('hold the instant: the hour starts at or before it and the next hour and minute come after it', () => {
    fc.assert(
      fc.property(instant, (now) => {
        const w = windowsAt(now);
        const s = now.getTime() / 1000;
        expect(w.hourStart % 3600).toBe(0);
        expect(w.hourStart <= s && s < w.nextHour).toBe(true);
        expect(w.nextHour - w.hourStart).toBe(3600);
        expect(w.nextMinute % 60).toBe(0);
        expect(s < w.nextMinute && w.nextMinute - s <= 60).toBe(true);
        expect(w.minuteOfHour).toBe(now.getUTCMinutes());
        // The minute ends within the hour: both windows fit in one item.
        expect(w.nextMinute <= w.nextHour).toBe(true);
      }),
    );
  });

  it('count whole seconds to a boundary, rounded up, at least 1', () => {
    fc.assert(
      fc.property(instant, fc.integer({ min: -100_000, max: 100_000 }), (now, offsetMs) => {
        const boundary = Math.floor((now.getTime() + offsetMs) / 1000);
        const n = secondsUntil(now, boundary);
        expect(Number.isInteger(n) && n >= 1).toBe(true);
        if (boundary * 1000 > now.getTime()) {
          // Waiting n seconds reaches the boundary; one second less does not.
          expect(now.getTime() + n * 1000).toBeGreaterThanOrEqual(boundary * 1000);
          expect(now.getTime() + (n - 1) * 1000).toBeLessThan(boundary * 1000);
        } else expect(n).toBe(1);
      }),
    );
  });

  it('for failed authentications: 10-minute clock windows holding the instant', () => {
    fc.assert(
      fc.property(instant, (now) => {
        const { start, end } = authFailureWindow(now);
        expect(start % AUTH_FAILURE_WINDOW_SECONDS).toBe(0);
        expect(end - start).toBe(AUTH_FAILURE_WINDOW_SECONDS);
        expect(start * 1000 <= now.getTime() && now.getTime() < end * 1000).toBe(true);
      }),
    );
  });
});

describe('the headers of an accepted request', () => {
  it('say what is left of each window and when it resets, never below 0', () => {
    const now = new Date('2026-11-22T06:40:30.250Z');
    const h = rateLimitHeaders(LIMITS, { hour: 998, minute: 101 }, now);
    expect(h).toEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '2',
      'X-RateLimit-Reset': String(Date.parse('2026-11-22T07:00:00Z') / 1000),
      'RateLimit-Policy': '"hourly";q=1000;w=3600, "burst";q=100;w=60, "creations";q=10;w=3600',
      RateLimit: '"hourly";r=2;t=1170, "burst";r=0;t=30',
    });
  });
});

describe('429s', () => {
  const at = new Date('2026-11-22T06:40:30.250Z');

  it('run Retry-After to the end of the window exceeded: the minute for a burst, the hour otherwise', () => {
    const burst = limitExceeded('burst', LIMITS, at);
    expect(burst).toMatchObject({ status: 429, code: 'RATE_LIMIT_EXCEEDED', options: { limit: 'burst' } });
    expect(burst.options.headers).toEqual({ 'X-RateLimit-Remaining': '0', 'Retry-After': '30' });
    expect(burst.message).toBe('Rate limit exceeded: the burst limit of 100 requests per minute for this API key. Retry after 30 seconds.');
    expect(limitExceeded('hourly', LIMITS, at).options.headers).toMatchObject({ 'Retry-After': '1170' });
    expect(limitExceeded('creations', LIMITS, at).message).toContain('the limit of 10 deployment creations per hour for this organization');
  });

  it('keep the per-key headers of the request but say 0 remaining', () => {
    const e = limitExceeded('burst', LIMITS, at, { hour: 10, minute: 100 });
    expect(e.options.headers).toMatchObject({ 'X-RateLimit-Limit': '1000', 'X-RateLimit-Remaining': '0', 'Retry-After': '30' });
    expect(e.options.headers?.RateLimit).toBe('"hourly";r=990;t=1170, "burst";r=0;t=30');
  });

  it('name the hourly window when both are full (the longer wait), else the burst', () => {
    expect(windowFull(LIMITS, { hour: 1000, minute: 100 }, at).options.limit).toBe('hourly');
    expect(windowFull(LIMITS, { hour: 1000, minute: 3 }, at).options.limit).toBe('hourly');
    expect(windowFull(LIMITS, { hour: 999, minute: 100 }, at).options.limit).toBe('burst');
  });

  it('never tell a client to retry before the window it exceeded ends', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom('hourly' as const, 'burst' as const, 'creations' as const), (now, which) => {
        const w = windowsAt(now);
        const retryAfter = Number(limitExceeded(which, LIMITS, now).options.headers?.['Retry-After']);
        const end = which === 'burst' ? w.nextMinute : w.nextHour;
        expect(now.getTime() + retryAfter * 1000).toBeGreaterThanOrEqual(end * 1000);
        expect(retryAfter).toBeLessThanOrEqual(which === 'burst' ? 60 : 3600);
      }),
    );
  });

  it('for failed authentications describe that limit alone, until its window ends', () => {
    const { end } = authFailureWindow(at);
    const e = tooManyAuthFailures(20, at, end);
    expect(e.options).toMatchObject({
      limit: 'auth_failures',
      headers: {
        'Retry-After': String(secondsUntil(at, end)),
        'X-RateLimit-Limit': '20',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(end),
      },
    });
    expect(e.message).toContain('the limit of 20 requests with an unknown API key per 10 minutes from this address');
  });

  it('for waits beyond the concurrent limit ask for a short retry', () => {
    const e = tooManyWaits(5);
    expect(e.options).toEqual({
      headers: { 'Retry-After': String(WAIT_RETRY_AFTER_SECONDS), 'X-RateLimit-Remaining': '0' },
      limit: 'waits',
    });
    expect(e.message).toBe(
      `Rate limit exceeded: the limit of 5 concurrent operation waits per organization. Retry after ${WAIT_RETRY_AFTER_SECONDS} seconds.`,
    );
  });
});
