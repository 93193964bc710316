/**
 * Making, finding, rotating and revoking API keys: the one path for the dashboard API and the
 * operator keys CLI alike. The key itself is returned once, to be shown; only its hash is stored.
 */

import { findKeyById, revokeKey, saveKey, saveRotation } from '../adapters/dynamo/api-key-store.js';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import { type ApiKeyRecord, generateKey, type NewKeyInput, planRotation } from '../core/api-keys.js';
import { apiError } from '../core/errors.js';

export async function createApiKey(input: NewKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const made = generateKey(input, await keySigningSecret().read());
  await saveKey(made.record);
  return made;
}

const KEY_ID = /^key_[0-9a-f]{20}$/;

/** A key of the organization; another organization's key is not found, as if it did not exist. */
export async function findOrgKey(orgId: string, id: string): Promise<ApiKeyRecord> {
  const found = KEY_ID.test(id) ? await findKeyById(id) : undefined;
  if (!found || found.org_id !== orgId) throw apiError('API_KEY_NOT_FOUND', { id });
  return found;
}

/** Revocation is permanent and idempotent: revoking again answers with the first revocation. */
export const revokeApiKey = (record: ApiKeyRecord, now: Date): Promise<ApiKeyRecord> => revokeKey(record, now);

/**
 * Decision 47: a new key in the old one's place; the old one keeps working until the end
 * of the grace (or its own earlier expiry). When the old key changed between reading and
 * writing (revoked, or rotated by someone else), it is read again and the rotation
 * planned from what it now is: refused if it was revoked, else the shorter expiry kept.
 */
export async function rotateApiKey(
  old: ApiKeyRecord,
  graceSeconds: number,
  now: Date,
): Promise<{ key: string; record: ApiKeyRecord; old: ApiKeyRecord }> {
  let current = old;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { key, record, oldExpiresAt } = planRotation(current, graceSeconds, now, await keySigningSecret().read());
    if (await saveRotation(record, current, oldExpiresAt)) return { key, record, old: { ...current, expires_at: oldExpiresAt } };
    const reread = await findKeyById(current.id);
    if (!reread) throw apiError('API_KEY_NOT_FOUND', { id: current.id });
    current = reread;
  }
  throw new Error(`API key ${old.id} kept changing during its rotation`);
}
