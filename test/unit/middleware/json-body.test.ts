/**
 * middleware/json-body.ts with validate-input.ts and map-errors.ts, as a route that takes
 * a body runs them: malformed JSON is 400, and a `__proto__` or `constructor` key anywhere
 * is read as a key like any other, then answered at its path by the validation, never by
 * the parser without one (decision 296).
 */
import middy from '@middy/core';
import { CreateDeploymentBody, PatchDeploymentBody } from '../../../contract/schemas.js';
import type { ApiContext, ApiResponse } from '../../../functions/middleware/api-request.js';
import { jsonBody } from '../../../functions/middleware/json-body.js';
import { mapErrors } from '../../../functions/middleware/map-errors.js';
import { protoKeyPaths, validateInput } from '../../../functions/middleware/validate-input.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

async function send(body: string, schema: typeof CreateDeploymentBody | typeof PatchDeploymentBody = CreateDeploymentBody) {
  const handler = middy(async (_e: unknown, c: ApiContext): Promise<ApiResponse> => ({ data: c.api.input.body }))
    .use(mapErrors())
    .use(jsonBody())
    .use(validateInput({ body: schema }));
  const response = (await handler(apiEvent({ httpMethod: 'POST', body }), apiContext({}))) as {
    statusCode?: number;
    data?: unknown;
    body?: string;
  };
  return response.statusCode ? { status: response.statusCode, ...JSON.parse(response.body!) } : { status: 200, data: response.data };
}

it('answers malformed or empty JSON with 400 INVALID_REQUEST', async () => {
  for (const body of ['{"a":', '', '{"app_type":"airflow",}'])
    expect(await send(body)).toMatchObject({
      status: 400,
      error: { code: 'INVALID_REQUEST', message: 'The request body is not valid JSON.' },
    });
});

it('refuses a __proto__ env name at config.env.__proto__, alone or among others, at creation and in a patch', async () => {
  const reserved = { field: 'config.env.__proto__', issue: 'is a reserved name' };
  expect(await send('{"app_type":"airflow","config":{"env":{"__proto__":{"value":"x"}}}}')).toMatchObject({
    status: 400,
    error: { code: 'INVALID_REQUEST', message: 'The request body is invalid.', details: [reserved] },
  });
  expect(
    await send('{"app_type":"airflow","config":{"env":{"A":{"value":"1"},"__proto__":{"value":"x"},"B":{"value":"2"}}}}'),
  ).toMatchObject({
    status: 400,
    error: { details: [reserved] },
  });
  expect(await send('{"config":{"env":{"__proto__":null}}}', PatchDeploymentBody)).toMatchObject({
    status: 400,
    error: { details: [reserved] },
  });
  // With another problem, both are named.
  expect((await send('{"app_type":"nope","config":{"env":{"__proto__":{"value":"x"}}}}')).error.details).toEqual([
    { field: 'app_type', issue: 'must be one of: airflow, superset' },
    reserved,
  ]);
});

it('reads a __proto__ key elsewhere as an unknown field, never as a prototype', async () => {
  const res = await send('{"app_type":"airflow","__proto__":{"admin":true}}');
  expect(res).toMatchObject({ status: 400, error: { code: 'INVALID_REQUEST', details: [{ field: '__proto__', issue: 'unknown field' }] } });
  expect(({} as { admin?: boolean }).admin).toBeUndefined();
});

it('takes constructor and prototype as env names like any other, and checks their entries', async () => {
  const ok = await send('{"app_type":"airflow","config":{"env":{"constructor":{"value":"c"},"prototype":{"value":"p","secret":true}}}}');
  expect(ok).toEqual({
    status: 200,
    data: { app_type: 'airflow', config: { env: { constructor: { value: 'c' }, prototype: { value: 'p', secret: true } } } },
  });
  // middy's parser refused this one as `constructor`; it is an unknown field of that entry.
  expect(await send('{"app_type":"airflow","config":{"env":{"constructor":{"value":"c","prototype":{}}}}}')).toMatchObject({
    status: 400,
    error: { details: [{ field: 'config.env.constructor.prototype', issue: 'unknown field' }] },
  });
});

it('finds every __proto__ key of a body, however deep it nests, without recursion', () => {
  expect(protoKeyPaths(JSON.parse('{"a":[{"__proto__":1}],"__proto__":{"__proto__":2}}')).sort()).toEqual(['__proto__', 'a.0.__proto__']);
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
  expect(protoKeyPaths(JSON.parse(deep))).toEqual([]);
});
