/**
 * The API key (decision 28: missing, not recognised, revoked, expired, in that order),
 * then both rate-limit windows of decision 32 in one conditional write. A refused key is
 * never counted; an accepted one gets the rate-limit headers on whatever answer follows.
 */
import { findKeyByHash, touchKey } from '../adapters/dynamo/api-key-store.js';
import { consumeRequest } from '../adapters/dynamo/rate-limit-counter.js';
import { checkKeyUsable, hashKey, invalidKey, isWellFormedKey, missingKey, sameHash } from '../core/api-keys.js';
import { rateLimitHeaders } from '../core/rate-limits.js';
import { config } from '../lib/config.js';
import { logger } from '../lib/logger.js';
import type { ApiMiddleware } from './api-request.js';

export const authenticate = (): ApiMiddleware => ({
  async before(request) {
    const { headers } = request.event;
    const { api } = request.context;
    const key = headers['x-api-key'];
    if (key === undefined || key === '') throw missingKey(/^bearer\s/i.test(headers.authorization ?? ''));
    // A mistyped key fails its checksum here, without a database read (decision 35).
    if (!isWellFormedKey(key)) throw invalidKey();
    const hash = hashKey(key);
    const record = await findKeyByHash(hash);
    if (!record || !sameHash(record.hash, hash)) throw invalidKey();
    // Recognised: from here on the request is the key's, and its use is logged (decision 34) even if refused.
    api.caller = { keyId: record.id, orgId: record.org_id, scopes: record.scopes, record };
    logger.appendKeys({ key_id: record.id, org_id: record.org_id });
    checkKeyUsable(record, api.now);
    const limits = config().limits;
    // The use is stamped whether or not a limit then refuses it: a request was made with the key.
    const [usage, lastUsedAt] = await Promise.all([consumeRequest(record.id, limits, api.now), touchKey(hash, api.now)]);
    api.caller.lastUsedAt = lastUsedAt;
    api.limitHeaders = rateLimitHeaders(limits, usage, api.now);
  },
});
