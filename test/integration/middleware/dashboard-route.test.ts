/**
 * middleware/dashboard-route.ts, the stack it assembles: the shared stack (request id,
 * headers, error mapping, envelope) behind the signed-in user's token and role, checked
 * against the emulated user pool; a body only where the route takes one; no usage entry.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type DashboardRoute, dashboardRoutes } from '../../../functions/dashboard-routes.js';
import type { IntentResult } from '../../../functions/middleware/api-request.js';
import { type DashboardInput, dashboardRoute } from '../../../functions/middleware/dashboard-route.js';
import { type DashboardSession, startDashboardSession, TEST_PASSWORD } from '../../helpers/dashboard-session.js';
import { dynamoCallsOf } from '../../helpers/dynamo-calls.js';
import { apiContext, apiEvent, logged } from '../../helpers/middleware-request.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const org = `org-mw-${Date.now().toString(36)}`;
let session: DashboardSession;
const tokens = { admin: '', viewer: '' };
const bearer = (who: keyof typeof tokens) => ({ Authorization: `Bearer ${tokens[who]}` });

beforeAll(async () => {
  session = await startDashboardSession();
  for (const role of ['admin', 'viewer'] as const) {
    await session.users(['create', '--org', org, '--email', `${role}@mw.test`, '--role', role, '--password', TEST_PASSWORD]);
    tokens[role] = await session.signIn(`${role}@mw.test`);
  }
});
afterAll(() => session.close());

/** The route's handler around a stand-in intent that records what it was given. */
function endpoint<R extends DashboardRoute>(
  route: R,
  answer: (input: DashboardInput<R>) => Promise<IntentResult> = async () => ({ data: 'ok' }),
) {
  const intent = jest.fn(answer);
  return { intent, handler: dashboardRoute(route, intent) };
}

async function send(handler: ReturnType<typeof dashboardRoute>, event: Partial<APIGatewayProxyEvent>) {
  const { result, lines } = await logged(() => handler(apiEvent(event), apiContext()));
  const body = result.headers?.['Content-Type'] === JSON_TYPE ? JSON.parse(result.body) : result.body;
  return { status: result.statusCode, headers: result.headers as Record<string, string>, body, lines };
}

it('gives the intent the verified user, and answers in the envelope with the request id and protective headers, no limit headers', async () => {
  const { intent, handler } = endpoint(dashboardRoutes.getMe);
  const { result: res, calls } = await dynamoCallsOf(() =>
    send(handler, { path: '/dashboard/api/me', headers: { ...bearer('viewer'), 'X-Request-Id': 'dash-1' } }),
  );
  expect(res).toMatchObject({ status: 200, body: { data: 'ok' } });
  expect(res.headers).toEqual({
    'Content-Type': JSON_TYPE,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'X-Request-Id': 'dash-1',
  });
  expect(intent).toHaveBeenCalledWith(
    expect.objectContaining({ user: expect.objectContaining({ email: 'viewer@mw.test', orgId: org, role: 'viewer' }) }),
  );
  // The usage log is the API keys' (decision 34): the stack itself writes nothing.
  expect(calls).toEqual([]);
  expect(res.lines).toEqual([
    expect.objectContaining({ message: 'request', status: 200, request_id: 'dash-1', route: 'GET /dashboard/api/me', org_id: org }),
  ]);
});

it('refuses before the intent: no token 401, an API key instead 401, a forged token 401, a viewer on an admin route 403', async () => {
  const { intent, handler } = endpoint(dashboardRoutes.createKey);
  const post = (headers: Record<string, string>) => ({
    httpMethod: 'POST',
    path: '/dashboard/api/keys',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: '{"name":"k"}',
  });
  // The admin's own claims under a signature the pool never made.
  const [header, payload] = tokens.admin.split('.');
  const forged = `${header}.${payload}.not-the-pools-signature`;
  const cases: { headers: Record<string, string>; status: number; code: string }[] = [
    { headers: {}, status: 401, code: 'MISSING_TOKEN' },
    { headers: { 'X-API-Key': 'svc_sk_live_x' }, status: 401, code: 'MISSING_TOKEN' },
    { headers: { Authorization: `Bearer ${forged}` }, status: 401, code: 'INVALID_TOKEN' },
    { headers: bearer('viewer'), status: 403, code: 'INSUFFICIENT_ROLE' },
  ];
  for (const c of cases) {
    const res = await send(handler, post(c.headers));
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: c.status, code: c.code });
    expect(res.headers['X-Request-Id']).toBe(res.body.error.request_id);
  }
  expect(intent).not.toHaveBeenCalled();
});

it('checks a route’s body after the role: 415, 400 for bad JSON or a bad field; the parsed body reaches the intent', async () => {
  const { intent, handler } = endpoint(dashboardRoutes.createKey, async () => ({ status: 201, data: 'made' }));
  const post = (contentType: string, body: string) => ({
    httpMethod: 'POST',
    path: '/dashboard/api/keys',
    headers: { ...bearer('admin'), 'Content-Type': contentType },
    body,
  });
  expect((await send(handler, post('text/plain', '{"name":"k"}'))).body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  expect((await send(handler, post('application/json', '{"name":'))).body.error).toMatchObject({
    code: 'INVALID_REQUEST',
    message: 'The request body is not valid JSON.',
  });
  expect((await send(handler, post('application/json', '{"name":"k","owner":"me"}'))).body.error).toMatchObject({
    code: 'INVALID_REQUEST',
    details: [{ field: 'owner', issue: 'unknown field' }],
  });
  expect(intent).not.toHaveBeenCalled();
  expect(await send(handler, post('application/json', '{"name":" k "}'))).toMatchObject({ status: 201, body: { data: 'made' } });
  expect(intent).toHaveBeenCalledWith(expect.objectContaining({ body: { name: 'k' }, user: expect.objectContaining({ role: 'admin' }) }));
});

it('reads no body on a route that takes none, and validates its path', async () => {
  const { intent, handler } = endpoint(dashboardRoutes.revokeKey);
  const res = await send(handler, {
    httpMethod: 'DELETE',
    path: '/dashboard/api/keys/key_1',
    pathParameters: { key_id: 'key_1' },
    headers: { ...bearer('admin'), 'Content-Type': 'text/plain' },
    body: 'ignored',
  });
  expect(res.status).toBe(200);
  expect(intent).toHaveBeenCalledWith(expect.objectContaining({ params: { key_id: 'key_1' }, body: undefined }));
});

it('answers an intent that throws with a generic 500 under the request id, logging the fault', async () => {
  const { handler } = endpoint(dashboardRoutes.getMe, async () => {
    throw new Error('pool on fire');
  });
  const res = await send(handler, { path: '/dashboard/api/me', headers: bearer('viewer') });
  expect(res.status).toBe(500);
  expect(res.body.error).toMatchObject({ code: 'INTERNAL_ERROR', request_id: res.headers['X-Request-Id'] });
  expect(JSON.stringify(res.body)).not.toContain('pool on fire');
  expect(res.lines.map((l) => l.message)).toEqual(['request failed', 'request']);
});
