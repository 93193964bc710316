/**
 * Finding and revoking an organization's API keys, for the dashboard API and the operator
 * keys CLI alike: nothing here signs a key (api-keys.ts makes and rotates them).
 */

import { apiError } from '../../contract/errors.js';
import { findKeyById, revokeKey } from '../adapters/dynamo/api-key-store.js';
import type { ApiKeyRecord } from '../core/api-keys.js';

const KEY_ID = /^key_[0-9a-f]{20}$/;

/** A key of the organization; another organization's key is not found, as if it did not exist. */
export async function findOrgKey(orgId: string, id: string): Promise<ApiKeyRecord> {
  const found = KEY_ID.test(id) ? await findKeyById(id) : undefined;
  if (!found || found.org_id !== orgId) throw apiError('API_KEY_NOT_FOUND', { id });
  return found;
}

/** Revocation is permanent and idempotent: revoking again answers with the first revocation. */
export const revokeApiKey = (record: ApiKeyRecord, now: Date): Promise<ApiKeyRecord> => revokeKey(record, now);
