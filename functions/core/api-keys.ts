/**
 * API keys: `svc_sk_live_<token>`, where the token is 43 base62 characters of
 * randomness (256 bits) followed by a 6-character CRC32 checksum. The checksum lets
 * a mistyped key be refused without a database read; the service stores only the
 * SHA-256 of the whole key.
 */
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { type ApiError, apiError, invalidRequest } from './errors.js';
import type { Scope } from './schemas.js';
import { SCOPES } from './schemas.js';

export const KEY_PREFIX = 'svc_sk_live_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 43; // 43 × log2(62) ≈ 256.03 bits
const CHECKSUM_CHARS = 6; // 62^6 > 2^32
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + CHECKSUM_CHARS}}$`);

/**
 * An organization id: it becomes part of every partition key of the organization
 * (`ORG#<org>`), so it may hold nothing that reads as a key separator or a pattern.
 * Checked wherever a key is issued (the keys CLI, the dashboard), not only in one tool.
 */
export const ORG_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
export const ORG_ID_RULE = 'must be 1-64 letters, digits, "-" or "_", starting with a letter or digit';

/** Throws 400 INVALID_REQUEST (field `org_id`) unless the organization id is well formed. */
export function checkOrgId(orgId: string): string {
  if (!ORG_ID_PATTERN.test(orgId)) throw invalidRequest(`The organization id ${ORG_ID_RULE}.`, [{ field: 'org_id', issue: ORG_ID_RULE }]);
  return orgId;
}

/** The stored form of a key: everything but the key itself. */
export interface ApiKeyRecord {
  id: string;
  org_id: string;
  name: string;
  scopes: Scope[];
  hash: string;
  hint: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  /** When the key was last used (decision 40); null before its first request. */
  last_used_at: string | null;
}

function base62(value: number, width: number): string {
  let out = '';
  for (let i = 0, n = value; i < width; i++, n = Math.floor(n / 62)) out = ALPHABET[n % 62] + out;
  return out;
}

function checksum(random: string): string {
  return base62(crc32(random), CHECKSUM_CHARS);
}

/** Uniform random base62 characters by rejection sampling (no modulo bias). */
function randomBase62(count: number): string {
  let out = '';
  while (out.length < count) {
    for (const byte of randomBytes(count * 2)) {
      if (byte < 248 && out.length < count) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function keyHint(key: string): string {
  return `${KEY_PREFIX}…${key.slice(-4)}`;
}

/** True when the key has the right form and its checksum matches: no database needed. */
export function isWellFormedKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const token = key.slice(KEY_PREFIX.length);
  return checksum(token.slice(0, RANDOM_CHARS)) === token.slice(RANDOM_CHARS);
}

/** Constant-time comparison of two hex digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export interface NewKeyInput {
  orgId: string;
  name: string;
  scopes?: readonly Scope[];
  expiresAt?: string | null;
  now: Date;
}

/** A new key and its stored record. The key itself is returned to be shown once, never stored. */
export function generateKey(input: NewKeyInput): { key: string; record: ApiKeyRecord } {
  checkOrgId(input.orgId);
  const random = randomBase62(RANDOM_CHARS);
  const key = `${KEY_PREFIX}${random}${checksum(random)}`;
  return {
    key,
    record: {
      id: `key_${randomUUID().replaceAll('-', '').slice(0, 20)}`,
      org_id: input.orgId,
      name: input.name,
      scopes: [...(input.scopes ?? SCOPES)],
      hash: hashKey(key),
      hint: keyHint(key),
      created_at: input.now.toISOString(),
      expires_at: input.expiresAt ?? null,
      revoked_at: null,
      last_used_at: null,
    },
  };
}

export const missingKey = (bearer: boolean) => apiError('MISSING_API_KEY', { bearer });
export const invalidKey = () => apiError('INVALID_API_KEY');

/**
 * Why a recognised key may not be used now, if it may not. Order (decision 28): revoked,
 * then expired; a key is expired from its expiry instant on.
 */
export function keyRefusal(record: ApiKeyRecord, now: Date): ApiError | undefined {
  if (record.revoked_at) return apiError('API_KEY_REVOKED');
  if (record.expires_at && now.getTime() >= Date.parse(record.expires_at))
    return apiError('API_KEY_EXPIRED', { expiredAt: record.expires_at });
  return undefined;
}

/** Decision 47: how long a rotated key keeps working, in seconds (at most a week; a day unless told). */
export const ROTATION_GRACE = { min: 0, max: 604_800, default: 86_400 } as const;

/**
 * Decision 47: a rotation's new key takes the old one's organization, name, scopes and
 * expiry; the old key then expires at the earlier of its own expiry and the end of the grace.
 * A key that may not be used (revoked, expired) may not be rotated either.
 */
export function planRotation(old: ApiKeyRecord, graceSeconds: number, now: Date) {
  const refusal = keyRefusal(old, now);
  if (refusal) throw apiError('API_KEY_NOT_ROTATABLE', { id: old.id, why: old.revoked_at ? 'revoked' : 'expired' });
  const graceEnd = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  const oldExpiresAt = old.expires_at && Date.parse(old.expires_at) < Date.parse(graceEnd) ? old.expires_at : graceEnd;
  const made = generateKey({ orgId: old.org_id, name: old.name, scopes: old.scopes, expiresAt: old.expires_at, now });
  return { ...made, oldExpiresAt };
}

/** Throws 403 unless the key holds one of the scopes (the first is the one named). */
export function checkScope(granted: readonly Scope[], anyOf: readonly [Scope, ...Scope[]]): void {
  if (anyOf.some((scope) => granted.includes(scope))) return;
  throw apiError('INSUFFICIENT_SCOPE', { scope: anyOf[0] });
}

/** A key as its organization's users and operators see it: never the key or its hash. */
export function keySummary(r: ApiKeyRecord) {
  return {
    id: r.id,
    name: r.name,
    scopes: r.scopes,
    hint: r.hint,
    created_at: r.created_at,
    expires_at: r.expires_at,
    revoked_at: r.revoked_at,
    last_used_at: r.last_used_at,
  };
}
