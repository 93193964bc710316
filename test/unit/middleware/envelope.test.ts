/** middleware/envelope.ts alone: an intent's result becomes the wire response; anything else passes untouched. */
import middy from '@middy/core';
import type { ApiResponse } from '../../../functions/middleware/api-request.js';
import { envelope } from '../../../functions/middleware/envelope.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const around = (result: ApiResponse) => middy(async () => result).use(envelope());

it('puts a JSON result under "data" with its status and headers, and the JSON content type', async () => {
  const response = await around({ status: 201, data: { id: 'x' }, headers: { Location: '/x' } })(apiEvent(), apiContext({}));
  expect(response).toEqual({
    statusCode: 201,
    headers: { Location: '/x', 'Content-Type': 'application/json; charset=utf-8' },
    body: '{"data":{"id":"x"}}',
  });
});

it('answers 200 when the result names no status', async () => {
  expect(await around({ data: [] })(apiEvent(), apiContext({}))).toMatchObject({ statusCode: 200, body: '{"data":[]}' });
});

it('sends a raw result as it is, with its own content type winning over a header of the same name', async () => {
  const raw = {
    status: 200,
    body: '<html></html>',
    contentType: 'text/html',
    headers: { 'Content-Type': 'text/plain', 'Cache-Control': 'max-age=60' },
  };
  expect(await around({ raw })(apiEvent(), apiContext({}))).toEqual({
    statusCode: 200,
    headers: { 'Cache-Control': 'max-age=60', 'Content-Type': 'text/html' },
    body: '<html></html>',
  });
});

it('leaves a wire response (one already made) alone, and touches nothing when the intent throws', async () => {
  const wire = { statusCode: 204, headers: {}, body: '' };
  expect(await around(wire)(apiEvent(), apiContext({}))).toBe(wire);
  const failing = middy(async (): Promise<ApiResponse> => {
    throw new Error('boom');
  }).use(envelope());
  await expect(failing(apiEvent(), apiContext({}))).rejects.toThrow('boom');
});
