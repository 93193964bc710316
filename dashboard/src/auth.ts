/**
 * Sign-in against the user pool with Cognito's own API (InitiateAuth over its JSON
 * protocol, no SDK in the page): the same calls reach Cognito on AWS and the emulation
 * under `npm start`. The ID token lives in memory only and is refreshed shortly before
 * it expires (and once more if the API still finds it expired); the refresh token is
 * kept for the tab's session, so a reload does not ask for the password again, and is
 * revoked at sign-out.
 */
import type { DashboardConfig } from './config.js';

const REFRESH_KEY = 'dashboard.refreshToken';

interface Session {
  idToken: string;
  refreshToken: string;
  /** Epoch ms after which the token is refreshed before use: a tenth of its lifetime before it expires. */
  refreshAt: number;
}

export class SignInError extends Error {}

let config: DashboardConfig;
let session: Session | null = null;
let refreshing: Promise<string> | null = null;
const listeners = new Set<() => void>();

export function configureAuth(c: DashboardConfig): void {
  config = c;
}

export const isSignedIn = (): boolean => session !== null;

export function onSessionChange(fn: () => void): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** One call of Cognito's JSON protocol. */
function cognito(action: string, input: Record<string, unknown>): Promise<Response> {
  return fetch(config.userPoolEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': `AWSCognitoIdentityProviderService.${action}` },
    body: JSON.stringify({ ClientId: config.clientId, ...input }),
  });
}

async function initiateAuth(flow: string, parameters: Record<string, string>) {
  const res = await cognito('InitiateAuth', { AuthFlow: flow, AuthParameters: parameters });
  const body = (await res.json()) as {
    AuthenticationResult?: { IdToken: string; RefreshToken?: string; ExpiresIn: number };
    ChallengeName?: string;
    message?: string;
  };
  if (!res.ok || !body.AuthenticationResult)
    throw new SignInError(
      body.ChallengeName ? `The account needs ${body.ChallengeName}; ask an administrator.` : (body.message ?? 'Sign-in failed.'),
    );
  return body.AuthenticationResult;
}

function start(idToken: string, refreshToken: string, expiresIn: number): void {
  session = { idToken, refreshToken, refreshAt: Date.now() + expiresIn * 900 };
  sessionStorage.setItem(REFRESH_KEY, refreshToken);
  for (const fn of listeners) fn();
}

export async function signIn(email: string, password: string): Promise<void> {
  const r = await initiateAuth('USER_PASSWORD_AUTH', { USERNAME: email, PASSWORD: password });
  start(r.IdToken, r.RefreshToken ?? '', r.ExpiresIn);
}

/**
 * Forgets the session here and revokes its refresh token at the pool, which would
 * otherwise refresh for 30 days in whatever copy of it survives (the ID token already
 * issued lives out its hour). The page signs out at once; revoking finishes in the
 * background, and a failure to revoke leaves nothing more to do here.
 */
export function signOut(): Promise<void> {
  const refreshToken = session?.refreshToken || sessionStorage.getItem(REFRESH_KEY);
  session = null;
  sessionStorage.removeItem(REFRESH_KEY);
  for (const fn of listeners) fn();
  if (!refreshToken) return Promise.resolve();
  return cognito('RevokeToken', { Token: refreshToken }).then(
    () => undefined,
    () => undefined,
  );
}

/** A fresh ID token from the refresh token; concurrent callers share one refresh. */
export function refresh(): Promise<string> {
  const refreshToken = session?.refreshToken ?? sessionStorage.getItem(REFRESH_KEY);
  if (!refreshToken) return Promise.reject(new SignInError('Signed out.'));
  refreshing ??= initiateAuth('REFRESH_TOKEN_AUTH', { REFRESH_TOKEN: refreshToken })
    .then((r) => {
      start(r.IdToken, refreshToken, r.ExpiresIn);
      return r.IdToken;
    })
    .catch((e: unknown) => {
      void signOut();
      throw e;
    })
    .finally(() => {
      refreshing = null;
    });
  return refreshing;
}

/** Resumes the tab's session after a reload, if it has one. */
export async function restoreSession(): Promise<void> {
  if (sessionStorage.getItem(REFRESH_KEY)) await refresh().catch(() => undefined);
}

/** The token to send now, refreshed first when it is near its end. */
export function currentToken(): Promise<string> {
  if (session && Date.now() < session.refreshAt) return Promise.resolve(session.idToken);
  return refresh();
}
