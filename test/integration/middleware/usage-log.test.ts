/** middleware/usage-log.ts alone, on DynamoDB Local: one entry per request of a recognised key, with the status it was answered. */

import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { listUsage } from '../../../functions/adapters/dynamo/usage-store.js';
import type { ApiResponse, Caller } from '../../../functions/middleware/api-request.js';
import { usageLog, usageLogAhead } from '../../../functions/middleware/usage-log.js';
import { routes } from '../../../functions/routes.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const caller = (): Caller => ({ keyId: `key_${randomUUID().slice(0, 8)}`, orgId: 'org-usage', scopes: [], record: {} as never });
const answering = (statusCode: number) => async (): Promise<ApiResponse> => ({ statusCode, headers: {}, body: '' });

/** The stack's order: the settling hook outermost, the early write last before the intent. */
const stack = (intent: () => Promise<ApiResponse>) => middy(intent).use(usageLog()).use(usageLogAhead(routes.getKey));

it('writes one entry with the route’s success status, the route template, the key, organization and request id', async () => {
  const who = caller();
  const at = new Date();
  await stack(answering(200))(apiEvent(), apiContext({ caller: who, now: at, requestId: 'req_u1' }));
  expect(await listUsage(who.keyId, 10)).toEqual([
    expect.objectContaining({
      at: at.toISOString(),
      method: 'GET',
      route: '/api/v1/key',
      status: 200,
      key_id: who.keyId,
      org_id: who.orgId,
      request_id: 'req_u1',
    }),
  ]);
});

it('corrects the early entry to the status actually answered, still one entry', async () => {
  const who = caller();
  await stack(answering(404))(apiEvent(), apiContext({ caller: who }));
  expect((await listUsage(who.keyId, 10)).map((e) => e.status)).toEqual([404]);
});

it('logs a request refused before the intent once, with its status (usageLog alone, the early write never ran)', async () => {
  const who = caller();
  const refused = middy(answering(403)).use(usageLog());
  await refused(apiEvent(), apiContext({ caller: who }));
  expect((await listUsage(who.keyId, 10)).map((e) => e.status)).toEqual([403]);
});

it('writes nothing for a request without a recognised key, and changes no answer', async () => {
  const response = await stack(answering(401))(apiEvent(), apiContext({}));
  expect(response).toEqual({ statusCode: 401, headers: {}, body: '' });
});
