/**
 * Verifies the dashboard's bearer tokens: the user pool's RS256 ID tokens for the
 * dashboard's app client, checked against the pool's JWKS with node:crypto (decision 200:
 * one algorithm, one issuer and one audience need no JWT library, and one would be a
 * sixth of the function's own code). The same code runs on Lambda against Cognito and
 * locally against the emulated pool; only the issuer differs.
 *
 * The signature is checked before any claim, so only a token the pool signed can be told
 * apart as expired; every other refusal is INVALID_TOKEN, its reason logged (never the token).
 */
import { createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { type DashboardUser, userFromClaims } from '../../../contract/dashboard-users.js';
import { apiError } from '../../../contract/errors.js';
import { config } from '../../lib/config.js';
import { logger } from '../../lib/logger.js';

/** A key id the JWKS does not hold sends for it again at most this often (a rotated pool key), not for every forged token. */
const REFETCH_MS = 60_000;
/** How far a clock ahead of ours may set `nbf`/`iat`. */
const SKEW_SECONDS = 60;

/** The pool's signing keys by key id, as its JWKS last listed them: fetched at first use and again for a key id not seen. */
let signingKeys = new Map<string, KeyObject>();
let fetchedAt = Number.NEGATIVE_INFINITY;

async function signingKey(issuer: string, kid: string): Promise<KeyObject | undefined> {
  if (!signingKeys.has(kid) && Date.now() - fetchedAt >= REFETCH_MS) {
    // https on AWS, plain http to the emulation on loopback; no redirect is followed.
    const uri = `${issuer}/.well-known/jwks.json`;
    const res = await fetch(uri, { signal: AbortSignal.timeout(3000), redirect: 'error' });
    if (!res.ok) throw new Error(`JWKS fetch from ${uri} answered ${res.status}`);
    const { keys } = (await res.json()) as { keys?: JsonWebKey[] };
    // The list replaces the last one: a key the pool has retired is trusted no longer.
    signingKeys = new Map(
      (keys ?? [])
        .filter((jwk) => typeof jwk.kid === 'string' && jwk.kty === 'RSA' && (jwk.use ?? 'sig') === 'sig')
        .map((jwk) => [jwk.kid as string, createPublicKey({ key: jwk, format: 'jwk' })]),
    );
    fetchedAt = Date.now();
  }
  return signingKeys.get(kid);
}

class Refused extends Error {}
class Expired extends Error {}

const decoded = (part: string): Record<string, unknown> => {
  const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Refused('not a JSON object');
  return value as Record<string, unknown>;
};

async function verifiedClaims(token: string, issuer: string, clientId: string): Promise<Record<string, unknown>> {
  const parts = token.split('.');
  if (parts.length !== 3) throw new Refused('malformed');
  const [head, body, signature] = parts as [string, string, string];
  let header: Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    header = decoded(head);
    claims = decoded(body);
  } catch {
    throw new Refused('malformed');
  }
  // The pool signs with RS256 only: no other algorithm (none, HS256 keyed with the public key) is tried.
  if (header.alg !== 'RS256' || typeof header.kid !== 'string') throw new Refused('algorithm');
  const key = await signingKey(issuer, header.kid);
  if (!key) throw new Refused('unknown key id');
  if (!verify('RSA-SHA256', Buffer.from(`${head}.${body}`), key, Buffer.from(signature, 'base64url'))) throw new Refused('signature');
  if (claims.iss !== issuer) throw new Refused('issuer');
  // Cognito writes an ID token's audience as the app client's id.
  if (claims.aud !== clientId) throw new Refused('audience');
  // Only ID tokens carry the organization and role; an access token of the same pool is refused.
  if (claims.token_use !== 'id') throw new Refused('not an ID token');
  const now = Date.now() / 1000;
  if (typeof claims.exp !== 'number') throw new Refused('no expiry');
  for (const claim of ['nbf', 'iat'] as const) {
    const at = claims[claim];
    if (at !== undefined && (typeof at !== 'number' || at > now + SKEW_SECONDS)) throw new Refused(`${claim} in the future`);
  }
  if (claims.exp <= now) throw new Expired();
  return claims;
}

export async function verifyUserToken(token: string): Promise<DashboardUser> {
  const { issuer, clientId } = config().dashboard;
  // A function deployed without a user pool cannot accept any token: a fault, not the caller's.
  if (!issuer || !clientId) throw new Error('DASHBOARD_TOKEN_ISSUER and DASHBOARD_CLIENT_ID must be set for the dashboard API');
  let claims: Record<string, unknown>;
  try {
    claims = await verifiedClaims(token, issuer, clientId);
  } catch (e) {
    if (e instanceof Expired) throw apiError('TOKEN_EXPIRED');
    // Why a token was refused helps an operator; the token itself is never logged.
    logger.info('dashboard token refused', { reason: e instanceof Refused ? e.message : e instanceof Error ? e.name : 'unknown' });
    throw apiError('INVALID_TOKEN');
  }
  return userFromClaims(claims);
}
