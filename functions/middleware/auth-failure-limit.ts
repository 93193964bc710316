/**
 * A per-address limit on failed authentications, around `authenticate`. A key of the
 * earlier form carries a CRC anyone can compute, so a well-formed guess of that form
 * passes it and costs a database read; an address that sends more than
 * AUTH_FAILURE_LIMIT such unknown keys in a window is then refused with 429 before its
 * key is looked up, until the window ends. A signed key (core/api-keys.ts) is never
 * refused here: only the service can make one, so an organization's clients behind the
 * same address as a guesser keep working; and a forged one is refused before any read,
 * so it counts against no one.
 *
 * The refusal is decided from this process's memory of blocked addresses, so an
 * accepted key costs nothing extra; the memory is filled from the shared counter,
 * which is written only when a key was refused as unknown. Another Lambda instance
 * learns of a blocked address on that address's next failure there. On AWS the WAF's
 * per-address rate rule stands in front of all of it.
 */

import { ApiError } from '../../contract/errors.js';
import { countAuthFailure } from '../adapters/dynamo/auth-failure-counter.js';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import { isLegacyKey, keyForm } from '../core/api-keys.js';
import { authFailureWindow, tooManyAuthFailures } from '../core/rate-limits.js';
import { config } from '../lib/config.js';
import { logger } from '../lib/logger.js';
import type { ApiMiddleware, ApiRequest } from './api-request.js';

/** Address → the epoch second its window ends. */
const blocked = new Map<string, number>();
const BLOCKED_KEPT = 10_000;

const addressOf = (request: ApiRequest): string | undefined => request.event.requestContext?.identity?.sourceIp || undefined;

export const authFailureLimit = (): ApiMiddleware => ({
  async before(request) {
    const address = addressOf(request);
    const until = address === undefined ? undefined : blocked.get(address);
    if (until === undefined || address === undefined) return;
    const { now } = request.context.api;
    if (until * 1000 <= now.getTime()) {
      blocked.delete(address);
      return;
    }
    const key = request.event.headers['x-api-key'];
    if (key && keyForm(key, await keySigningSecret().read()) === 'signed') return;
    throw tooManyAuthFailures(config().authFailureLimit, now, until);
  },
  async onError(request) {
    const { error } = request;
    if (!(error instanceof ApiError) || error.code !== 'INVALID_API_KEY') return;
    // Only a well-formed key of the earlier form was looked up: any other was refused without a read.
    const key = request.event.headers['x-api-key'];
    const address = addressOf(request);
    if (!key || !isLegacyKey(key) || address === undefined) return;
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
