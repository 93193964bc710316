/**
 * DNS rebinding: a page on an attacker's name that resolves to 127.0.0.1 reaches the
 * local servers with its own name in the Host header. Every surface of the local server
 * (the API, its docs, the emulated user pool, the dashboard and its API) and the Step
 * Functions endpoint refuse such a request before routing it, in the API's envelope;
 * the loopback names, and the configured HOST, are served.
 */
import http from 'node:http';
import { createApiServer } from '../../local/api-server.js';
import { hostName, isAllowedHost } from '../../local/loopback-host.js';
import { LOCAL_CLIENT_ID } from '../../local/user-pool.js';
import { type DashboardSession, startDashboardSession } from '../helpers/dashboard-session.js';
import { close, listen } from '../helpers/scripted-api.js';

let session: DashboardSession;
beforeAll(async () => {
  session = await startDashboardSession();
});
afterAll(() => session.close());

interface Raw {
  status: number;
  body: any;
}

/** A request with the Host header given (fetch would set its own). */
function send(origin: string, host: string, method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<Raw> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname, port, method, path, headers: { ...headers, Host: host, 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // HTML or a redirect: its status is what is compared.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const signIn = JSON.stringify({
  AuthFlow: 'USER_PASSWORD_AUTH',
  ClientId: LOCAL_CLIENT_ID,
  AuthParameters: { USERNAME: 'a@b.test', PASSWORD: 'x' },
});
const SURFACES: [string, string, Record<string, string>, string][] = [
  ['GET', '/api/v1/deployments', {}, ''],
  ['GET', '/api/v1/docs', {}, ''],
  ['GET', '/api/v1/openapi.json', {}, ''],
  [
    'POST',
    '/cognito/',
    { 'X-Amz-Target': 'AWSCognitoIdentityProviderService.ListUsers', 'Content-Type': 'application/x-amz-json-1.1' },
    '{"UserPoolId":"us-east-1_LocalPool"}',
  ],
  [
    'POST',
    '/cognito/',
    { 'X-Amz-Target': 'AWSCognitoIdentityProviderService.InitiateAuth', 'Content-Type': 'application/x-amz-json-1.1' },
    signIn,
  ],
  ['GET', '/dashboard/', {}, ''],
  ['GET', '/dashboard/config.json', {}, ''],
  ['GET', '/dashboard/api/me', {}, ''],
];

describe('the local server', () => {
  it('refuses a foreign Host on every surface with 421 MISDIRECTED_REQUEST in the envelope', async () => {
    const port = new URL(session.origin).port;
    for (const host of [
      `rebind.attacker.test:${port}`,
      'rebind.attacker.test',
      `app.localhost:${port}`,
      `localhost.attacker.test:${port}`,
      '10.1.2.3',
    ]) {
      for (const [method, path, headers, body] of SURFACES) {
        const r = await send(session.origin, host, method, path, headers, body);
        expect({ host, path, status: r.status, code: r.body?.error?.code }).toEqual({
          host,
          path,
          status: 421,
          code: 'MISDIRECTED_REQUEST',
        });
        expect(r.body.error.request_id).toMatch(/^req_/);
      }
    }
  });

  it('serves the loopback names, with or without a port, in any case', async () => {
    const port = new URL(session.origin).port;
    for (const host of [`localhost:${port}`, 'LOCALHOST', `127.0.0.1:${port}`, '127.0.0.1', `[::1]:${port}`, '[::1]', 'localhost.']) {
      const answers = [];
      for (const [method, path, headers, body] of SURFACES)
        answers.push((await send(session.origin, host, method, path, headers, body)).status);
      // What each surface answers without credentials: 401 for a key or token, 200 for the public pages and the pool.
      expect({ host, answers }).toEqual({ host, answers: [401, 200, 200, 200, 400, 200, 200, 401] });
    }
  });

  it('serves the configured HOST too, and still refuses other names', async () => {
    const server = createApiServer(undefined, 'devbox.internal');
    const origin = await listen(server);
    try {
      expect((await send(origin, 'DevBox.internal:8080', 'GET', '/api/v1/openapi.json')).status).toBe(200);
      expect((await send(origin, 'other.internal', 'GET', '/api/v1/openapi.json')).status).toBe(421);
    } finally {
      await close(server);
    }
  });

  it('takes an address literal only when it is the address the request reached (no name, so no rebinding)', () => {
    expect(hostName('[::1]:3000')).toBe('::1');
    expect(hostName('Example.TEST:80')).toBe('example.test');
    expect(hostName('a:b:c')).toBeUndefined();
    expect(isAllowedHost('192.168.1.5:3000', '::ffff:192.168.1.5', '0.0.0.0')).toBe(true);
    expect(isAllowedHost('192.168.1.6:3000', '::ffff:192.168.1.5', '0.0.0.0')).toBe(false);
    expect(isAllowedHost('0.0.0.0', '127.0.0.1', undefined)).toBe(false);
  });
});

describe('the Step Functions endpoint', () => {
  it('refuses a foreign Host, and answers a loopback one', async () => {
    const origin = process.env.AWS_ENDPOINT_URL_SFN!;
    const headers = { 'X-Amz-Target': 'AWSStepFunctions.DescribeExecution', 'Content-Type': 'application/x-amz-json-1.0' };
    const body = JSON.stringify({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:operation:none' });
    const foreign = await send(origin, 'rebind.attacker.test', 'POST', '/', headers, body);
    expect({ status: foreign.status, code: foreign.body.error?.code }).toEqual({ status: 421, code: 'MISDIRECTED_REQUEST' });
    const local = await send(origin, new URL(origin).host, 'POST', '/', headers, body);
    expect({ status: local.status, type: local.body.__type }).toEqual({ status: 400, type: 'ExecutionDoesNotExist' });
  });
});
