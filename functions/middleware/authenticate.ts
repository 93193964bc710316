/**
 * The API key (decision 28: missing, not recognised, revoked, expired, in that order),
 * then both rate-limit windows (the hour's and the minute's, decision 32), all in one
 * conditional write on the key's item that also returns its record. A refused key is never counted; an accepted one gets
 * the rate-limit headers on whatever answer follows.
 */

import { admitRequest } from '../adapters/dynamo/key-admission.js';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import { hashKey, invalidKey, keyForm, keyRefusal, missingKey, sameHash } from '../core/api-keys.js';
import { keyActor } from '../core/events.js';
import { rateLimitHeaders, windowFull } from '../core/rate-limits.js';
import { config } from '../lib/config.js';
import { logger } from '../lib/logger.js';
import type { ApiMiddleware } from './api-request.js';

export const authenticate = (): ApiMiddleware => ({
  async before(request) {
    const { headers } = request.event;
    const { api } = request.context;
    const key = headers['x-api-key'];
    if (key === undefined || key === '') throw missingKey(/^bearer\s/i.test(headers.authorization ?? ''));
    // A mistyped or forged key fails its checksum here, without a database read (decision 35).
    if (!keyForm(key, await keySigningSecret().read())) throw invalidKey();
    const hash = hashKey(key);
    const limits = config().limits;
    const admission = await admitRequest(hash, limits, api.now);
    if (admission.outcome === 'unknown' || !sameHash(admission.record.hash, hash)) throw invalidKey();
    const { record } = admission;
    // Recognised: from here on the request is the key's, and its use is logged (decision 34) even if refused.
    api.caller = { keyId: record.id, orgId: record.org_id, scopes: record.scopes, record, actor: keyActor(record.id) };
    logger.appendKeys({ key_id: record.id, org_id: record.org_id });
    if (admission.outcome === 'unusable') throw keyRefusal(record, api.now) ?? invalidKey();
    if (admission.outcome === 'limited') throw windowFull(limits, admission.usage, api.now);
    api.limitHeaders = rateLimitHeaders(limits, admission.usage, api.now);
  },
});
