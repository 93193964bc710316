/**
 * Making and rotating API keys: the one path for the dashboard API and the operator keys
 * CLI alike. The key itself is returned once, to be shown; only its hash is stored. Finding
 * and revoking one (api-key-lookups.ts) needs no signing secret, so is apart.
 */

import { apiError } from '../../contract/errors.js';
import { findKeyById, saveKey, saveRotation } from '../adapters/dynamo/api-key-store.js';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import { type ApiKeyRecord, generateKey, type NewKeyInput, planRotation } from '../core/api-keys.js';
import { config } from '../lib/config.js';

/** An organization holds at most KEYS_PER_ORGANIZATION keys; one more is refused (decision 130). */
const keyLimitReached = (limit: number) => apiError('KEY_LIMIT_REACHED', { limit });

export async function createApiKey(input: NewKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const made = generateKey(input, await keySigningSecret().read());
  const limit = config().keysPerOrganization;
  if (!(await saveKey(made.record, limit))) throw keyLimitReached(limit);
  return made;
}

/**
 * A new key in the old one's place; the old one keeps working until the end of the grace
 * (or its own earlier expiry), so clients can move over without an outage (decision 47).
 * When the old key changed between reading and writing (revoked, or rotated by someone
 * else), it is read again and the rotation planned from what it now is: refused if it was
 * revoked, else the shorter expiry kept.
 * The new key takes the old one's place (decision 130), so a rotation is refused for the
 * limit only when the old key holds none (rotated already).
 */
export async function rotateApiKey(
  old: ApiKeyRecord,
  graceSeconds: number,
  now: Date,
): Promise<{ key: string; record: ApiKeyRecord; old: ApiKeyRecord }> {
  let current = old;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { key, record, oldExpiresAt } = planRotation(current, graceSeconds, now, await keySigningSecret().read());
    const limit = config().keysPerOrganization;
    const saved = await saveRotation(record, current, oldExpiresAt, limit);
    if (saved === 'rotated') return { key, record, old: { ...current, expires_at: oldExpiresAt } };
    if (saved === 'full') throw keyLimitReached(limit);
    const reread = await findKeyById(current.id);
    if (!reread) throw apiError('API_KEY_NOT_FOUND', { id: current.id });
    current = reread;
  }
  throw new Error(`API key ${old.id} kept changing during its rotation`);
}
