/** middleware/authorize-user.ts alone: the dashboard API's refusals before any token is verified. */
import middy from '@middy/core';
import { authorizeUser } from '../../../functions/middleware/authorize-user.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const run = (headers: Record<string, string>) => {
  const context = apiContext({});
  const handler = middy(async () => 'reached').use(authorizeUser('viewer'));
  return { context, result: handler(apiEvent({ headers }), context) };
};

it('refuses a request without a token with 401 MISSING_TOKEN, saying so when an API key came instead', async () => {
  const none = run({});
  await expect(none.result).rejects.toMatchObject({ code: 'MISSING_TOKEN', status: 401 });
  const keyed = (await run({ 'x-api-key': 'svc_sk_live_x' }).result.catch((e: unknown) => e)) as Error;
  expect(keyed).toMatchObject({ code: 'MISSING_TOKEN' });
  expect(keyed.message).not.toBe(((await none.result.catch((e: unknown) => e)) as Error).message);
  expect(none.context.api.user).toBeUndefined();
});

it('refuses an Authorization header that is not a bearer JWT with 401 INVALID_TOKEN, without verifying anything', async () => {
  for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer not-a-jwt', 'Bearer a.b.c.d', 'bearer a.b.c']) {
    const { context, result } = run({ authorization });
    await expect(result).rejects.toMatchObject({ code: 'INVALID_TOKEN', status: 401 });
    expect(context.api.user).toBeUndefined();
  }
});
