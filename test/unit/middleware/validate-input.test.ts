/** middleware/validate-input.ts alone: path, query and body against the route's schemas, parsed values kept for the intent. */
import middy from '@middy/core';
import * as z from 'zod/mini';
import type { ApiContext } from '../../../functions/middleware/api-request.js';
import { validateInput } from '../../../functions/middleware/validate-input.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const route = {
  params: z.strictObject({ id: z.string().check(z.minLength(3)) }),
  query: z.object({ page: z.optional(z.coerce.number()) }),
  body: z.strictObject({ name: z.string(), size: z.optional(z.enum(['s', 'm'])), tags: z.optional(z.array(z.string())) }),
};

/** The validated input the intent would be given. */
async function validate(event: Parameters<typeof apiEvent>[0], r: Parameters<typeof validateInput>[0] = route) {
  const context = apiContext({});
  await middy(async (_e: unknown, c: ApiContext) => c.api.input).use(validateInput(r))(apiEvent(event), context);
  return context.api.input;
}

it("keeps each part's parsed value (coerced, defaults applied) in the request state, the event untouched", async () => {
  const event = { pathParameters: { id: 'abc' }, queryStringParameters: { page: '2' }, body: { name: 'n' } as unknown as string };
  expect(await validate(event)).toEqual({ params: { id: 'abc' }, query: { page: 2 }, body: { name: 'n' } });
  expect(await validate({ pathParameters: { id: 'abc' } }, { params: route.params })).toEqual({ params: { id: 'abc' } });
});

it('reads missing path parameters and query as empty objects', async () => {
  expect(await validate({ body: {} as unknown as string }, { query: route.query, body: z.object({}) })).toEqual({ query: {}, body: {} });
  await expect(validate({}, { params: route.params })).rejects.toMatchObject({
    message: 'The path is invalid.',
    options: { details: [{ field: 'id', issue: 'is required' }] },
  });
});

it.each([
  [{ size: 'l', name: 'n' }, [{ field: 'size', issue: 'must be one of: s, m' }]],
  [{ name: 7 }, [{ field: 'name', issue: 'must be a string, not a number' }]],
  [{ name: 'n', tags: [1] }, [{ field: 'tags.0', issue: 'must be a string, not a number' }]],
  [
    { name: 'n', extra: true, more: null },
    [
      { field: 'extra', issue: 'unknown field' },
      { field: 'more', issue: 'unknown field' },
    ],
  ],
  [{}, [{ field: 'name', issue: 'is required' }]],
])('refuses the body %j with 400 INVALID_REQUEST and details per field', async (body, details) => {
  await expect(validate({ pathParameters: { id: 'abc' }, body: body as unknown as string })).rejects.toMatchObject({
    code: 'INVALID_REQUEST',
    status: 400,
    message: 'The request body is invalid.',
    options: { details },
  });
});

it('refuses a body that is not a JSON object before its schema is read', async () => {
  for (const body of [[1], 'text', null, 3])
    await expect(validate({ body: body as unknown as string }, { body: route.body })).rejects.toMatchObject({
      message: 'The request body must be a JSON object.',
    });
});

it('names the part that failed: path, then query, then body', async () => {
  await expect(validate({ pathParameters: { id: 'x' }, body: {} as unknown as string })).rejects.toMatchObject({
    message: 'The path is invalid.',
  });
  await expect(validate({ pathParameters: { id: 'abc' }, queryStringParameters: { page: 'two' } })).rejects.toMatchObject({
    message: 'The query is invalid.',
  });
});

it('reads no part the route does not declare', async () => {
  expect(await validate({ pathParameters: { anything: '1' }, queryStringParameters: { x: 'y' }, body: 'not json' }, {})).toEqual({});
});
