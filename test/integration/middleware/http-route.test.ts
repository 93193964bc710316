/**
 * middleware/http-route.ts, the stack it assembles, on DynamoDB Local: the checks run in
 * their order and the first refusal answers; whatever answers (the intent, a refusal, a
 * fault), the way out still gives it the envelope, the usage entry and the request's
 * headers. The intent is a stand-in; the event is as API Gateway sends it (headers as
 * the client spelled them).
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { apiError } from '../../../contract/errors.js';
import { type Route, routes } from '../../../contract/routes.js';
import { listUsage } from '../../../functions/adapters/dynamo/usage-store.js';
import type { IntentResult } from '../../../functions/middleware/api-request.js';
import { lambdaHandler } from '../../../functions/middleware/base-stack.js';
import { httpBodyRoute } from '../../../functions/middleware/body-route.js';
import { httpRoute, type Input, type LambdaHandler } from '../../../functions/middleware/http-route.js';
import { createKey } from '../../helpers/fixtures.js';
import { apiContext, apiEvent, logged } from '../../helpers/middleware-request.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROTECTIVE = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };

/** The route's handler (with the body's steps where it takes one) around a stand-in intent that records what it was given. */
function endpoint<R extends Route>(route: R, answer: (input: Input<R>) => Promise<IntentResult> = async () => ({ data: { ok: true } })) {
  const intent = jest.fn(answer);
  const handler = route.body
    ? httpBodyRoute(route as R & { body: NonNullable<Route['body']> }, intent)
    : httpRoute(route as R & { body: undefined }, intent);
  return { intent, handler };
}

async function send(handler: LambdaHandler, event: Partial<APIGatewayProxyEvent>) {
  const { result, lines } = await logged(() => handler(apiEvent(event), apiContext()));
  const body = result.headers?.['Content-Type'] === JSON_TYPE ? JSON.parse(result.body) : result.body;
  return { status: result.statusCode, headers: result.headers as Record<string, string>, body, lines };
}

const usageOf = async (keyId: string) =>
  (await listUsage(keyId, 10)).map(({ status, route, request_id }) => ({ status, route, request_id }));

it('answers the intent’s result in the envelope, with the request id, the key’s limit and protective headers, and its usage entry', async () => {
  const { key, record } = await createKey({ scopes: ['org:read'] });
  const { intent, handler } = endpoint(routes.getKey);
  const res = await send(handler, { headers: { 'X-API-Key': key, 'X-Request-Id': 'client-1' } });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ data: { ok: true } });
  expect(res.headers).toEqual({
    'X-RateLimit-Limit': expect.any(String),
    'X-RateLimit-Remaining': expect.any(String),
    'X-RateLimit-Reset': expect.any(String),
    RateLimit: expect.any(String),
    'RateLimit-Policy': expect.any(String),
    'Content-Type': JSON_TYPE,
    ...PROTECTIVE,
    'X-Request-Id': 'client-1',
  });
  expect(intent).toHaveBeenCalledWith(
    expect.objectContaining({ caller: expect.objectContaining({ keyId: record.id, orgId: record.org_id }), requestId: 'client-1' }),
  );
  expect(await usageOf(record.id)).toEqual([{ status: 200, route: '/api/v1/key', request_id: 'client-1' }]);
  // One access line, carrying the request's keys.
  expect(res.lines).toEqual([
    expect.objectContaining({ message: 'request', status: 200, request_id: 'client-1', route: 'GET /api/v1/key', key_id: record.id }),
  ]);
});

it('answers an intent that throws with a generic 500 that still has the request id, the limit headers and a usage entry', async () => {
  const { key, record } = await createKey();
  const { handler } = endpoint(routes.getKey, async () => {
    throw new Error('table on fire');
  });
  const res = await send(handler, { headers: { 'X-API-Key': key } });
  expect(res.status).toBe(500);
  expect(res.body.error).toEqual({ code: 'INTERNAL_ERROR', message: expect.any(String), request_id: res.headers['X-Request-Id'] });
  expect(JSON.stringify(res.body)).not.toContain('table on fire');
  expect(res.headers).toMatchObject({
    'X-RateLimit-Limit': expect.any(String),
    ...PROTECTIVE,
    'X-Request-Id': expect.stringMatching(/^req_/),
  });
  expect(res.lines.map((l) => l.message)).toEqual(['request failed', 'request']);
  expect(await usageOf(record.id)).toEqual([{ status: 500, route: '/api/v1/key', request_id: res.headers['X-Request-Id'] }]);
});

it('corrects the usage entry to a refusal the intent throws (a 404)', async () => {
  const { key, record } = await createKey({ scopes: ['deployments:read'] });
  const { handler } = endpoint(routes.getDeployment, async () => {
    throw apiError('DEPLOYMENT_NOT_FOUND', { id: 'dep_x' });
  });
  const res = await send(handler, {
    path: '/api/v1/deployments/dep_x',
    pathParameters: { deployment_id: 'dep_x' },
    headers: { 'X-API-Key': key },
  });
  expect(res.status).toBe(404);
  expect(res.body.error.code).toBe('DEPLOYMENT_NOT_FOUND');
  expect(await usageOf(record.id)).toEqual([
    { status: 404, route: '/api/v1/deployments/{deployment_id}', request_id: res.headers['X-Request-Id'] },
  ]);
});

describe('the checks in order: the first refusal answers, the intent is not reached', () => {
  const post = (headers: Record<string, string>, body: string) => ({ httpMethod: 'POST', path: '/api/v1/deployments', headers, body });

  it('the key before the body: 401 with no key, the request id and protective headers on it', async () => {
    const { intent, handler } = endpoint(routes.createDeployment);
    const res = await send(handler, post({ 'Content-Type': 'text/plain' }, 'not json'));
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('MISSING_API_KEY');
    expect(res.headers).toMatchObject({ ...PROTECTIVE, 'X-Request-Id': expect.stringMatching(/^req_/) });
    expect(intent).not.toHaveBeenCalled();
  });

  it('the scope before the body (403), then the media type (415), the JSON (400), the schema (400 with details); each logged as usage', async () => {
    const reader = await createKey({ scopes: ['deployments:read'] });
    const writer = await createKey({ scopes: ['deployments:write'] });
    const { intent, handler } = endpoint(routes.createDeployment);
    const cases = [
      { key: reader.key, type: 'text/plain', body: 'not json', status: 403, code: 'INSUFFICIENT_SCOPE' },
      { key: writer.key, type: 'text/plain', body: '{"app_type":"airflow"}', status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
      { key: writer.key, type: 'application/json', body: '{"app_type":', status: 400, code: 'INVALID_REQUEST' },
      { key: writer.key, type: 'application/json', body: '{"app_type":"cobol"}', status: 400, code: 'INVALID_REQUEST' },
    ];
    for (const c of cases) {
      const res = await send(handler, post({ 'X-API-Key': c.key, 'Content-Type': c.type }, c.body));
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: c.status, code: c.code });
      expect(res.headers['X-RateLimit-Limit']).toEqual(expect.any(String));
    }
    expect(intent).not.toHaveBeenCalled();
    expect((await usageOf(reader.record.id)).map((u) => u.status)).toEqual([403]);
    expect((await usageOf(writer.record.id)).map((u) => u.status).sort()).toEqual([400, 400, 415]);
  });
});

it('on a route that takes no body: no body and no Content-Type is `{}`, a non-JSON body is 415', async () => {
  const { key } = await createKey({ scopes: ['deployments:write'] });
  const { intent, handler } = endpoint(routes.cancelOperation);
  const event = (headers: Record<string, string>, body: string | null) => ({
    httpMethod: 'POST',
    path: '/api/v1/operations/op_1/cancel',
    pathParameters: { operation_id: 'op_1' },
    headers: { 'X-API-Key': key, ...headers },
    body,
  });
  expect((await send(handler, event({}, null))).status).toBe(200);
  expect(intent).toHaveBeenCalledWith(expect.objectContaining({ params: { operation_id: 'op_1' }, body: {} }));
  const refused = await send(handler, event({ 'Content-Type': 'text/plain' }, 'cancel it'));
  expect(refused.status).toBe(415);
  expect(refused.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  expect(intent).toHaveBeenCalledTimes(1);
});

it('repeats a POST’s first answer to its Idempotency-Key, marked Idempotent-Replayed, without running the intent again', async () => {
  const { key, record } = await createKey({ scopes: ['deployments:write'] });
  const { intent, handler } = endpoint(routes.createDeployment, async () => ({
    status: 202,
    data: { id: randomUUID() },
    headers: { Location: '/x' },
  }));
  const event = {
    httpMethod: 'POST',
    path: '/api/v1/deployments',
    headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
    body: '{"app_type":"airflow"}',
  };
  const first = await send(handler, event);
  const again = await send(handler, event);
  expect(intent).toHaveBeenCalledTimes(1);
  expect(first.status).toBe(202);
  expect(again).toMatchObject({ status: 202, body: first.body, headers: { Location: '/x', 'Idempotent-Replayed': 'true' } });
  expect(first.headers['Idempotent-Replayed']).toBeUndefined();
  expect((await usageOf(record.id)).map((u) => u.status)).toEqual([202, 202]);
});

it('serves a public route without a key, a raw result as it is, with the request’s headers', async () => {
  const { intent, handler } = endpoint(routes.getDocs, async () => ({ raw: { body: '<html></html>', contentType: 'text/html' } }));
  const res = await send(handler, { path: '/api/v1/docs', headers: { 'X-Request-Id': 'docs-1' } });
  expect(res).toMatchObject({
    status: 200,
    body: '<html></html>',
    headers: { 'Content-Type': 'text/html', 'X-Content-Type-Options': 'nosniff', 'X-Request-Id': 'docs-1' },
  });
  expect(res.headers['Cache-Control']).toBeUndefined();
  expect(intent).toHaveBeenCalledWith(expect.objectContaining({ caller: undefined }));
});

it('fails loudly if a stack ever produces no wire response', async () => {
  const handler = lambdaHandler(async () => ({ data: 'never enveloped' }));
  await expect(handler(apiEvent(), apiContext())).rejects.toThrow('The middleware stack produced no response.');
});
