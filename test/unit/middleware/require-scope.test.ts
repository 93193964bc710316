/** middleware/require-scope.ts alone: decision 29's check of the caller's scopes against the route's. */
import middy from '@middy/core';
import type { Route } from '../../../contract/routes.js';
import type { Scope } from '../../../contract/schemas.js';
import { requireScope } from '../../../functions/middleware/require-scope.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const caller = (scopes: Scope[]) => ({
  keyId: 'key_1',
  orgId: 'org-1',
  scopes,
  record: {} as never,
  actor: { type: 'api_key' as const, id: 'key_1' },
});
const run = (access: Route['access'], scopes?: Scope[]) => {
  const handler = middy(async () => 'reached').use(requireScope(access));
  return handler(apiEvent(), apiContext(scopes ? { caller: caller(scopes) } : {}));
};

it('lets a caller holding one of the scopes through, and changes nothing on the request', async () => {
  const handler = middy(async () => 'reached').use(requireScope(['deployments:write', 'deployments:delete']));
  const context = apiContext({ caller: caller(['deployments:delete']) });
  const event = apiEvent();
  const before = structuredClone({ event, api: context.api });
  expect(await handler(event, context)).toBe('reached');
  expect({ event, api: context.api }).toEqual(before);
});

it('refuses a caller without any of them: 403 INSUFFICIENT_SCOPE naming the first', async () => {
  await expect(run(['deployments:write', 'deployments:delete'], ['org:read'])).rejects.toMatchObject({
    code: 'INSUFFICIENT_SCOPE',
    status: 403,
    message: expect.stringContaining('deployments:write'),
  });
});

it('checks nothing on a public route, nor before a caller is known (authenticate refuses those)', async () => {
  expect(await run('public', ['org:read'])).toBe('reached');
  expect(await run(['deployments:delete'])).toBe('reached');
});
