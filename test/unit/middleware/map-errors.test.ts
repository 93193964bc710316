/** middleware/map-errors.ts alone: every error becomes the error envelope; only faults are logged, and their text is never sent. */
import middy from '@middy/core';
import { apiError, invalidRequest } from '../../../contract/errors.js';
import type { ApiResponse } from '../../../functions/middleware/api-request.js';
import { mapErrors } from '../../../functions/middleware/map-errors.js';
import { apiContext, apiEvent, logged } from '../../helpers/middleware-request.js';

const throwing = (error: unknown) =>
  middy(async (): Promise<ApiResponse> => {
    throw error;
  }).use(mapErrors());

const answer = async (error: unknown) => {
  const { result, lines } = await logged(() => throwing(error)(apiEvent(), apiContext({ requestId: 'req_1' })));
  return { response: result as { statusCode: number; headers: Record<string, string>; body: string }, lines };
};

it('answers an ApiError with its status, code, message, details and headers, under the request id, and logs nothing', async () => {
  const error = apiError('IDEMPOTENCY_KEY_IN_USE', undefined, { headers: { 'Retry-After': '1' } });
  const { response, lines } = await answer(error);
  expect(response.statusCode).toBe(409);
  expect(response.headers).toMatchObject({
    'Retry-After': '1',
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': 'req_1',
  });
  expect(JSON.parse(response.body)).toEqual({ error: { code: 'IDEMPOTENCY_KEY_IN_USE', message: error.message, request_id: 'req_1' } });
  const invalid = await answer(invalidRequest('The query is invalid.', [{ field: 'page', issue: 'is required' }]));
  expect(JSON.parse(invalid.response.body).error.details).toEqual([{ field: 'page', issue: 'is required' }]);
  expect([...lines, ...invalid.lines]).toEqual([]);
});

it('answers anything else with a generic 500 that shows nothing of it, and logs it with its stack', async () => {
  const { response, lines } = await answer(new Error('secret connection string in here'));
  expect(response.statusCode).toBe(500);
  expect(response.body).not.toContain('secret');
  expect(JSON.parse(response.body).error).toMatchObject({ code: 'INTERNAL_ERROR', request_id: 'req_1' });
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: 'ERROR', message: 'request failed' });
  expect(JSON.stringify(lines[0])).toContain('secret connection string in here');
});

it('gives the answer a fresh request id when the request state was never set', async () => {
  const { result } = await logged(() => throwing(new Error('x'))(apiEvent(), apiContext()));
  expect((result as { headers: Record<string, string> }).headers['X-Request-Id']).toMatch(/^req_[0-9a-f]{32}$/);
});
