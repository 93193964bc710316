/** middleware/usage-log.ts alone, on DynamoDB Local: one entry per request of a recognised key, with the status it was answered. */

import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { routes } from '../../../contract/routes.js';
import { ddb } from '../../../functions/adapters/dynamo/client.js';
import { listUsage } from '../../../functions/adapters/dynamo/usage-store.js';
import type { ApiResponse, Caller } from '../../../functions/middleware/api-request.js';
import { usageLog, usageLogAhead } from '../../../functions/middleware/usage-log.js';
import { dynamoCallsOf } from '../../helpers/dynamo-calls.js';
import { injectFaults } from '../../helpers/inject-faults.js';
import { apiContext, apiEvent, logged } from '../../helpers/middleware-request.js';

const caller = (): Caller => {
  const keyId = `key_${randomUUID().slice(0, 8)}`;
  return { keyId, orgId: 'org-usage', scopes: [], record: {} as never, actor: { type: 'api_key', id: keyId } };
};
const answering = (statusCode: number) => async (): Promise<ApiResponse> => ({ statusCode, headers: {}, body: '' });

/** The stack's order: the settling hook outermost, the early write last before the intent. */
const stack = (intent: () => Promise<ApiResponse>) => middy(intent).use(usageLog()).use(usageLogAhead(routes.getKey));

it('writes one entry with the route’s success status, the route template and path, the client address, the key, organization and request id', async () => {
  const who = caller();
  const at = new Date();
  await stack(answering(200))(apiEvent(), apiContext({ caller: who, now: at, requestId: 'req_u1' }));
  expect(await listUsage(who.keyId, 10)).toEqual([
    expect.objectContaining({
      at: at.toISOString(),
      method: 'GET',
      route: '/api/v1/key',
      path: apiEvent().path,
      client_address: '198.51.100.7',
      status: 200,
      key_id: who.keyId,
      org_id: who.orgId,
      request_id: 'req_u1',
    }),
  ]);
});

it('corrects the early entry to the status actually answered, with its duration, still one entry', async () => {
  const who = caller();
  await stack(answering(404))(apiEvent(), apiContext({ caller: who }));
  expect((await listUsage(who.keyId, 10)).map((e) => [e.status, typeof e.duration_ms])).toEqual([[404, 'number']]);
});

it('writes a dry run’s entry with the 200 it answers, so that it needs no correction (one write)', async () => {
  const who = caller();
  const dryRun = middy(answering(200)).use(usageLog()).use(usageLogAhead(routes.updateDeployment));
  const { calls } = await dynamoCallsOf(() => dryRun(apiEvent(), apiContext({ caller: who, input: { query: { dry_run: true } } })));
  expect(calls.map((c) => c.command)).toEqual(['PutItemCommand']);
  expect((await listUsage(who.keyId, 10)).map((e) => e.status)).toEqual([200]);
  // Without dry_run the same route's entry is written as its 202, and corrected when the answer differs.
  const real = middy(answering(202)).use(usageLog()).use(usageLogAhead(routes.updateDeployment));
  const other = caller();
  await real(apiEvent(), apiContext({ caller: other, input: { query: { dry_run: false } } }));
  expect((await listUsage(other.keyId, 10)).map((e) => e.status)).toEqual([202]);
});

it('logs a request refused before the intent once, with its status (usageLog alone, the early write never ran)', async () => {
  const who = caller();
  const refused = middy(answering(403)).use(usageLog());
  await refused(apiEvent(), apiContext({ caller: who }));
  expect((await listUsage(who.keyId, 10)).map((e) => e.status)).toEqual([403]);
});

it('writes nothing for a request without a recognised key, and changes no answer', async () => {
  const { result: response, calls } = await dynamoCallsOf(() => stack(answering(401))(apiEvent(), apiContext({})));
  expect(response).toEqual({ statusCode: 401, headers: {}, body: '' });
  expect(calls).toEqual([]);
});

it('never turns an answer into a failure: an entry that cannot be written is logged instead', async () => {
  const who = caller();
  const injection = injectFaults(ddb, {
    commands: ['PutItemCommand'],
    share: 1,
    seed: 1,
    attempts: 1,
    surfaceEvery: 1,
    kinds: ['InternalServerError'],
  });
  try {
    const { result, lines } = await logged(() => stack(answering(200))(apiEvent(), apiContext({ caller: who })));
    expect(result).toEqual({ statusCode: 200, headers: {}, body: '' });
    // The early write failed, and so did the way out's second try with the answered status.
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['ERROR', 'usage log write failed'],
      ['ERROR', 'usage log write failed'],
    ]);
  } finally {
    injection.off();
  }
  expect(await listUsage(who.keyId, 10)).toEqual([]);
});
