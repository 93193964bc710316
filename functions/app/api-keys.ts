/**
 * Making, finding and revoking API keys: the one path for the dashboard API and the
 * operator keys CLI alike. The key itself is returned once, to be shown; only its hash is stored.
 */

import { findKeyById, revokeKey, saveKey } from '../adapters/dynamo/api-key-store.js';
import { keySigningSecret } from '../adapters/secrets-manager/key-signing-secret.js';
import { type ApiKeyRecord, generateKey, type NewKeyInput } from '../core/api-keys.js';
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
