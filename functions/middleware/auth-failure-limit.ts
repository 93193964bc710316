/**
 * A per-address limit on failed authentications, around `authenticate`. The key's
 * checksum is not secret, so a well-formed guess passes it and costs a database read;
 * an address that sends more than AUTH_FAILURE_LIMIT unknown keys in a window is then
 * refused with 429 before its key is looked up, until the window ends.
 *
 * The refusal is decided from this process's memory of blocked addresses, so an
 * accepted key costs nothing extra; the memory is filled from the shared counter,
 * which is written only when a key was refused as unknown. Another Lambda instance
 * learns of a blocked address on that address's next failure there. On AWS the WAF's
 * per-address rate rule stands in front of all of it.
 */
import { countAuthFailure } from '../adapters/dynamo/auth-failure-counter.js';
import { isWellFormedKey } from '../core/api-keys.js';
import { ApiError } from '../core/errors.js';
import { authFailureWindow, tooManyAuthFailures } from '../core/rate-limits.js';
import { config } from '../lib/config.js';
import { logger } from '../lib/logger.js';
import type { ApiMiddleware, ApiRequest } from './api-request.js';

/** Address → the epoch second its window ends. */
const blocked = new Map<string, number>();
const BLOCKED_KEPT = 10_000;

const addressOf = (request: ApiRequest): string | undefined => request.event.requestContext?.identity?.sourceIp || undefined;

export const authFailureLimit = (): ApiMiddleware => ({
  before(request) {
    const address = addressOf(request);
    const until = address === undefined ? undefined : blocked.get(address);
    if (until === undefined || address === undefined) return;
    const { now } = request.context.api;
    if (until * 1000 > now.getTime()) throw tooManyAuthFailures(config().authFailureLimit, now, until);
    blocked.delete(address);
  },
  async onError(request) {
    const { error } = request;
    if (!(error instanceof ApiError) || error.code !== 'INVALID_API_KEY') return;
    // A key that failed its checksum was refused without a read: nothing to guard.
    const key = request.event.headers['x-api-key'];
    const address = addressOf(request);
    if (!key || !isWellFormedKey(key) || address === undefined) return;
    const { now } = request.context.api;
    const window = authFailureWindow(now);
    let failures: number;
    try {
      failures = await countAuthFailure(address, window.start, window.end);
    } catch (e) {
      // The client's answer stays the 401 it earned; the limit is a guard, not a dependency.
      logger.warn('could not count a failed authentication', { error: e as Error });
      return;
    }
    if (failures < config().authFailureLimit) return;
    if (blocked.size >= BLOCKED_KEPT) blocked.clear();
    blocked.set(address, window.end);
    logger.warn('client address blocked after failed authentications', { source_ip: address, failures, until: window.end });
  },
});
