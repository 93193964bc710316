/**
 * Verifies the dashboard's bearer tokens with aws-jwt-verify: the user pool's RS256 ID
 * tokens for the dashboard's app client, checked against the pool's JWKS (fetched once
 * per process, and again only for a key id it has not seen). The same code runs on
 * Lambda against Cognito and locally against the emulated pool; only the issuer differs.
 */
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { JwtExpiredError } from 'aws-jwt-verify/error';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import { type DashboardUser, userFromClaims } from '../../core/dashboard-users.js';
import { apiError } from '../../core/errors.js';
import { config } from '../../lib/config.js';
import { logger } from '../../lib/logger.js';

/** The JWKS over the platform's fetch: https on AWS, plain http to the emulation on loopback. */
const jwksCache = new SimpleJwksCache({
  fetcher: {
    async fetch(uri: string) {
      const res = await fetch(uri, { signal: AbortSignal.timeout(3000), redirect: 'error' });
      if (!res.ok) throw new Error(`JWKS fetch from ${uri} answered ${res.status}`);
      return res.arrayBuffer();
    },
  },
});

function createVerifier() {
  const { issuer, clientId } = config().dashboard;
  // A function deployed without a user pool cannot accept any token: a fault, not the caller's.
  if (!issuer || !clientId) throw new Error('DASHBOARD_TOKEN_ISSUER and DASHBOARD_CLIENT_ID must be set for the dashboard API');
  return JwtRsaVerifier.create(
    {
      issuer,
      audience: clientId,
      jwksUri: `${issuer}/.well-known/jwks.json`,
      // Only ID tokens carry the organization and role; an access token of the same pool is refused.
      customJwtCheck: ({ payload }) => {
        if (payload.token_use !== 'id') throw new Error('not an ID token');
      },
    },
    { jwksCache },
  );
}

let verifier: ReturnType<typeof createVerifier> | undefined;

export async function verifyUserToken(token: string): Promise<DashboardUser> {
  verifier ??= createVerifier();
  let claims: Record<string, unknown>;
  try {
    claims = await verifier.verify(token);
  } catch (e) {
    if (e instanceof JwtExpiredError) throw apiError('TOKEN_EXPIRED');
    // Why a token was refused helps an operator; the token itself is never logged.
    logger.info('dashboard token refused', { reason: e instanceof Error ? e.name : 'unknown' });
    throw apiError('INVALID_TOKEN');
  }
  return userFromClaims(claims);
}
