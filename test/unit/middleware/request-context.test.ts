/** middleware/request-context.ts alone: the request's id, instant and route on the way in; the shared headers and one access line on the way out. */
import middy from '@middy/core';
import type { ApiContext, ApiMiddleware, ApiResponse } from '../../../functions/middleware/api-request.js';
import { invocation } from '../../../functions/middleware/invocation.js';
import { requestContext } from '../../../functions/middleware/request-context.js';
import { apiContext, apiEvent, logged } from '../../helpers/middleware-request.js';

const JSON_TYPE = 'application/json; charset=utf-8';

it('sets the request state: the caller’s safe X-Request-Id, the instant, the route template, no caller, no input', async () => {
  const context = apiContext();
  const handler = middy(async (): Promise<ApiResponse> => ({ statusCode: 200, headers: {}, body: '' })).use(
    requestContext('/api/v1/deployments/{deployment_id}'),
  );
  const before = Date.now();
  await logged(() => handler(apiEvent({ path: '/api/v1/deployments/d_1', headers: { 'x-request-id': 'client-id.1' } }), context));
  expect(context.api).toEqual({
    requestId: 'client-id.1',
    now: expect.any(Date),
    route: { method: 'GET', path: '/api/v1/deployments/{deployment_id}' },
    limitHeaders: {},
    input: {},
  });
  expect(context.api.now.getTime()).toBeGreaterThanOrEqual(before);
});

it('makes a fresh id for an unsafe one, and names the path itself as the route when no template is given', async () => {
  const context = apiContext();
  const handler = middy(async (): Promise<ApiResponse> => ({ statusCode: 404, headers: {}, body: '' })).use(requestContext());
  await logged(() => handler(apiEvent({ path: '/nowhere', headers: { 'x-request-id': 'bad id\n' } }), context));
  expect(context.api.requestId).toMatch(/^req_[0-9a-f]{32}$/);
  expect(context.api.route).toEqual({ method: 'GET', path: '/nowhere' });
});

it('stamps X-Request-Id, the key’s limit headers and the protective headers on the answer, a limit’s own headers winning', async () => {
  const handler = middy(async (_e: unknown, c: ApiContext): Promise<ApiResponse> => {
    c.api.limitHeaders = { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '7' };
    return { statusCode: 429, headers: { 'Content-Type': JSON_TYPE, 'X-RateLimit-Remaining': '0' }, body: '{}' };
  }).use(requestContext('/api/v1/key'));
  const { result } = await logged(() => handler(apiEvent({ headers: { 'x-request-id': 'r-1' } }), apiContext()));
  expect(result).toEqual({
    statusCode: 429,
    headers: {
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '0',
      'Content-Type': JSON_TYPE,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
      'X-Request-Id': 'r-1',
    },
    body: '{}',
  });
});

it('lets a non-JSON answer be cached, but never sniffed', async () => {
  const handler = middy(async (): Promise<ApiResponse> => ({ statusCode: 200, headers: { 'Content-Type': 'text/html' }, body: '' })).use(
    requestContext('/api/v1/docs'),
  );
  const { result } = await logged(() => handler(apiEvent(), apiContext()));
  expect((result as { headers: Record<string, string> }).headers).toEqual({
    'Content-Type': 'text/html',
    'X-Content-Type-Options': 'nosniff',
    'X-Request-Id': expect.stringMatching(/^req_/),
  });
});

it('logs one access line per request with its status, duration, request id, route and (in the invocation’s frame) the Lambda context', async () => {
  const handler = middy(async (): Promise<ApiResponse> => ({ statusCode: 204, headers: {}, body: '' }))
    .use(invocation() as ApiMiddleware)
    .use(requestContext('/api/v1/key'));
  const { lines } = await logged(() => handler(apiEvent({ headers: { 'x-request-id': 'r-2' } }), apiContext()));
  expect(lines).toEqual([
    expect.objectContaining({
      level: 'INFO',
      message: 'request',
      status: 204,
      duration_ms: expect.any(Number),
      request_id: 'r-2',
      route: 'GET /api/v1/key',
      function_name: 'test-function',
      function_request_id: 'aws-request-1',
    }),
  ]);
});

it('drops (in the invocation’s frame) the keys a warm process appended for its previous request', async () => {
  const { logger } = await import('../../../functions/lib/logger.js');
  logger.appendKeys({ key_id: 'key_previous', org_id: 'org-previous' });
  const handler = middy(async (): Promise<ApiResponse> => ({ statusCode: 200, headers: {}, body: '' }))
    .use(invocation() as ApiMiddleware)
    .use(requestContext('/api/v1/key'));
  const { lines } = await logged(() => handler(apiEvent(), apiContext()));
  expect(lines[0]).not.toHaveProperty('key_id');
  expect(lines[0]).not.toHaveProperty('org_id');
});

it('stamps the headers on an error answer too, and leaves a thrown error that nothing answered alone', async () => {
  const failing = middy(async (): Promise<ApiResponse> => {
    throw new Error('unanswered');
  }).use(requestContext('/api/v1/key'));
  const { lines } = await logged(() => expect(failing(apiEvent(), apiContext())).rejects.toThrow('unanswered'));
  expect(lines).toEqual([]);
});
