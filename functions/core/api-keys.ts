/**
 * API keys: `svc_sk_live_<token>`, where the token is 43 base62 characters of
 * randomness (256 bits) followed by a checksum, so a mistyped key is refused without a
 * database read; the service stores only the SHA-256 of the whole key.
 *
 * Keys issued now are signed: their checksum is 8 characters of an HMAC-SHA256 of the
 * random part under a secret only the service holds, so a key that passes it was issued
 * by the service, and a guessed one is refused before any read. Keys issued before carry
 * a 6-character CRC32 instead, which anyone can compute: they still work, but a
 * well-formed guess of that form costs a read, which the failed-authentication limit
 * guards (middleware/auth-failure-limit.ts).
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { type ApiError, apiError, invalidRequest } from '../../contract/errors.js';
import { KEY_NAME_PATTERN, KEY_NAME_RULE, ORG_ID_PATTERN, ORG_ID_RULE, ROTATION_GRACE } from '../../contract/limits.js';
import type { Scope } from '../../contract/schemas.js';
import { SCOPES } from '../../contract/vocabulary.js';

// The published formats and limits are the contract's (limits.ts); the key issuers import them from here too.
export { KEY_NAME_PATTERN, KEY_NAME_RULE, ORG_ID_PATTERN, ORG_ID_RULE, ROTATION_GRACE };

export const KEY_PREFIX = 'svc_sk_live_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 43; // 43 × log2(62) ≈ 256.03 bits
const CRC_CHARS = 6; // 62^6 > 2^32
const MAC_CHARS = 8; // 62^8 ≈ 2^47.6: a forged key passes once in about 2 × 10^14 tries
const MAC_SPACE = 62n ** BigInt(MAC_CHARS);
const TOKEN = (checksumChars: number) => new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_CHARS + checksumChars}}$`);
const SIGNED_PATTERN = TOKEN(MAC_CHARS);
const LEGACY_PATTERN = TOKEN(CRC_CHARS);
/** Token lengths of both forms, for tools that look for keys in text (the log scan). */
export const TOKEN_LENGTHS = [RANDOM_CHARS + CRC_CHARS, RANDOM_CHARS + MAC_CHARS] as const;

/** Throws 400 INVALID_REQUEST (field `org_id`) unless the organization id is well formed. */
export function checkOrgId(orgId: string): string {
  if (!ORG_ID_PATTERN.test(orgId)) throw invalidRequest(`The organization id ${ORG_ID_RULE}.`, [{ field: 'org_id', issue: ORG_ID_RULE }]);
  return orgId;
}

/** Throws 400 INVALID_REQUEST (field `name`) when the name holds a control character. */
export function checkKeyName(name: string): string {
  if (!KEY_NAME_PATTERN.test(name)) throw invalidRequest(`The key name ${KEY_NAME_RULE}.`, [{ field: 'name', issue: KEY_NAME_RULE }]);
  return name;
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
  /** The id of the key a rotation made in its place (decision 229); absent until then. */
  rotated_to?: string;
}

function base62(value: bigint, width: number): string {
  let out = '';
  for (let i = 0, n = value; i < width; i++, n /= 62n) out = ALPHABET[Number(n % 62n)] + out;
  return out;
}

const crcChecksum = (random: string): string => base62(BigInt(crc32(random)), CRC_CHARS);

/** The signed checksum: the HMAC's first 8 bytes, reduced to 8 base62 characters. */
function macChecksum(random: string, secret: Buffer): string {
  const mac = createHmac('sha256', secret).update(random, 'utf8').digest();
  return base62(mac.readBigUInt64BE(0) % MAC_SPACE, MAC_CHARS);
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

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

/**
 * What a presented key's checksum proves, without a database read: `signed`, issued by
 * this service (its HMAC matches under the secret); `legacy`, a key of the earlier form
 * whose CRC matches (anyone can make one); otherwise undefined, refused at once.
 */
export function keyForm(key: string, secret: Buffer): 'signed' | 'legacy' | undefined {
  const random = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_CHARS);
  const check = key.slice(KEY_PREFIX.length + RANDOM_CHARS);
  if (SIGNED_PATTERN.test(key)) return sameText(macChecksum(random, secret), check) ? 'signed' : undefined;
  if (LEGACY_PATTERN.test(key)) return crcChecksum(random) === check ? 'legacy' : undefined;
  return undefined;
}

/** True when the key has the earlier form and its CRC matches (such keys are no longer issued; tests forge them). */
export const isLegacyKey = (key: string): boolean => keyForm(key, Buffer.alloc(0)) === 'legacy';

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

/**
 * A new key, signed under the service's key-signing secret, and its stored record. The
 * key itself is returned to be shown once, never stored.
 */
export function generateKey(input: NewKeyInput, secret: Buffer): { key: string; record: ApiKeyRecord } {
  checkOrgId(input.orgId);
  const random = randomBase62(RANDOM_CHARS);
  const key = `${KEY_PREFIX}${random}${macChecksum(random, secret)}`;
  return { key, record: keyRecord(key, input) };
}

/** A key of the earlier, CRC-checked form: no longer issued, kept so tests can stand for keys issued before. */
export function generateLegacyKey(input: NewKeyInput): { key: string; record: ApiKeyRecord } {
  checkOrgId(input.orgId);
  const random = randomBase62(RANDOM_CHARS);
  const key = `${KEY_PREFIX}${random}${crcChecksum(random)}`;
  return { key, record: keyRecord(key, input) };
}

function keyRecord(key: string, input: NewKeyInput): ApiKeyRecord {
  checkKeyName(input.name);
  return {
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

/**
 * A rotation's new key takes the old one's organization, name, scopes and expiry; the old
 * key then expires at the earlier of its own expiry and the end of the grace (decision 47).
 * A key that may not be used (revoked, expired) may not be rotated either.
 */
export function planRotation(old: ApiKeyRecord, graceSeconds: number, now: Date, signingSecret: Buffer) {
  const refusal = keyRefusal(old, now);
  if (refusal) throw apiError('API_KEY_NOT_ROTATABLE', { id: old.id, why: old.revoked_at ? 'revoked' : 'expired' });
  // Decision 229: a key is rotated once; its successor carries the line on.
  if (old.rotated_to) throw apiError('API_KEY_NOT_ROTATABLE', { id: old.id, why: 'rotated', successor: old.rotated_to });
  const graceEnd = new Date(now.getTime() + graceSeconds * 1000).toISOString();
  const oldExpiresAt = old.expires_at && Date.parse(old.expires_at) < Date.parse(graceEnd) ? old.expires_at : graceEnd;
  const made = generateKey({ orgId: old.org_id, name: old.name, scopes: old.scopes, expiresAt: old.expires_at, now }, signingSecret);
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
