/**
 * The dashboard's API and its emulated user pool, in process over real HTTP: the local
 * server with the dashboard host in front, users made by the users CLI through the AWS
 * SDK, and sign-in by the pool's InitiateAuth as the web app does it.
 */
import type http from 'node:http';
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { createApiServer } from '../../local/api-server.js';
import { startDashboardHost } from '../../local/dashboard-host.js';
import { LOCAL_CLIENT_ID, LOCAL_USER_POOL_ID, USER_POOL_PATH } from '../../local/user-pool.js';
import { runUsersCommand } from '../../local/users-cli.js';
import { close } from './scripted-api.js';

export const TEST_PASSWORD = 'Integration-test-1';

export interface DashboardAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export interface DashboardSession {
  origin: string;
  /** The pool's issuer, which the handlers check tokens against. */
  issuer: string;
  /** A fresh SDK client on the emulated pool, as the users CLI makes one. */
  pool(): CognitoIdentityProviderClient;
  /** Runs the users CLI on the emulated pool; its output lines. */
  users(args: string[]): Promise<string[]>;
  /** The pool's InitiateAuth, as the web app calls it. */
  initiateAuth(flow: string, params: Record<string, string>): Promise<{ status: number; body: any }>;
  /** Signs in with the test password; the ID token. */
  signIn(email: string): Promise<string>;
  /** A request to the dashboard API (path below /dashboard/api). */
  send(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<DashboardAnswer>;
  close(): Promise<void>;
}

export async function startDashboardSession(tokenSeconds = 3600): Promise<DashboardSession> {
  const host = await startDashboardHost({ dataDir: null, tokenSeconds });
  const server: http.Server = createApiServer(host.routes);
  // On the port test/helpers/env.ts gave the handlers' issuer.
  const port = Number(new URL(process.env.DASHBOARD_TOKEN_ISSUER!).port);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${port}`;
  const issuer = host.issuerFor(port);
  if (issuer !== process.env.DASHBOARD_TOKEN_ISSUER) throw new Error(`the pool's issuer ${issuer} is not the handlers' one`);

  const pool = () =>
    new CognitoIdentityProviderClient({
      endpoint: `${origin}${USER_POOL_PATH}/`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  const initiateAuth = async (flow: string, params: Record<string, string>) => {
    const res = await fetch(`${origin}${USER_POOL_PATH}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'AWSCognitoIdentityProviderService.InitiateAuth' },
      body: JSON.stringify({ AuthFlow: flow, ClientId: LOCAL_CLIENT_ID, AuthParameters: params }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  return {
    origin,
    issuer,
    pool,
    initiateAuth,
    async users(args) {
      const out: string[] = [];
      const code = await runUsersCommand(args, { out: (l) => out.push(l) }, pool(), LOCAL_USER_POOL_ID);
      if (code !== 0) throw new Error(`users ${args.join(' ')} exited ${code}`);
      return out;
    },
    async signIn(email) {
      const r = await initiateAuth('USER_PASSWORD_AUTH', { USERNAME: email, PASSWORD: TEST_PASSWORD });
      if (r.status !== 200) throw new Error(`sign-in of ${email} answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body.AuthenticationResult.IdToken;
    },
    async send(method, path, headers, body) {
      const res = await fetch(`${origin}/dashboard/api${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, headers: res.headers, body: (await res.json()) as any };
    },
    close: () => close(server),
  };
}
