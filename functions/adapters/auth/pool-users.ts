/**
 * A dashboard user as the user pool holds them now (AdminGetUser through the AWS SDK),
 * for the steps that must not rest on a token's claims alone: an ID token outlives its
 * user's deletion or demotion by up to its lifetime. The one client finds the local
 * emulation through the standard AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER variable; the
 * pool's id is the last segment of its issuer (Cognito's is
 * https://cognito-idp.<region>.amazonaws.com/<pool id>).
 */
import { AdminGetUserCommand, CognitoIdentityProviderClient, UserNotFoundException } from '@aws-sdk/client-cognito-identity-provider';
import { ORG_ATTRIBUTE, ROLE_ATTRIBUTE } from '../../../contract/dashboard-users.js';
import { config } from '../../lib/config.js';

export interface PoolUser {
  sub: string | undefined;
  orgId: string | undefined;
  role: string | undefined;
  enabled: boolean;
}

let client: CognitoIdentityProviderClient | undefined;
/** Made at first use: only the functions that re-check a user bundle and start it. */
const cognito = () => {
  client ??= new CognitoIdentityProviderClient({});
  return client;
};

/** The user pool's id, from the issuer the dashboard API already checks tokens against. */
export function userPoolIdOf(issuer: string): string {
  const id = new URL(issuer).pathname.split('/').pop();
  if (!id) throw new Error(`the issuer ${issuer} names no user pool`);
  return id;
}

/** The pool's user of that user name (the pool signs in by email); undefined when there is none. */
export async function findPoolUser(username: string): Promise<PoolUser | undefined> {
  const { issuer } = config().dashboard;
  if (!issuer) throw new Error('DASHBOARD_TOKEN_ISSUER must be set for the dashboard API');
  try {
    const found = await cognito().send(new AdminGetUserCommand({ UserPoolId: userPoolIdOf(issuer), Username: username }));
    const attribute = (name: string) => found.UserAttributes?.find((a) => a.Name === name)?.Value;
    return { sub: attribute('sub'), orgId: attribute(ORG_ATTRIBUTE), role: attribute(ROLE_ATTRIBUTE), enabled: found.Enabled !== false };
  } catch (e) {
    if (e instanceof UserNotFoundException) return undefined;
    throw e;
  }
}
