/** middleware/idempotency.ts alone, on DynamoDB Local: a POST's Idempotency-Key claimed before the work, its answer kept for replays, released on failure. */

import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { routes } from '../../../contract/routes.js';
import type { ApiContext, ApiResponse, Caller } from '../../../functions/middleware/api-request.js';
import { idempotency } from '../../../functions/middleware/idempotency.js';
import { newOrgId } from '../../helpers/fixtures.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const caller = (): Caller => ({
  keyId: 'key_1',
  orgId: newOrgId(),
  scopes: [],
  record: {} as never,
  actor: { type: 'api_key', id: 'key_1' },
});

/** One request: the intent's result (or its throw), and the request state it leaves. */
function post(who: Caller, key: string | undefined, intent: () => Promise<ApiResponse>, body: unknown = { app_type: 'airflow' }) {
  const context = apiContext({ caller: who, input: { body } });
  const headers = key === undefined ? {} : { 'idempotency-key': key };
  const handler = middy(async (_e: unknown, c: ApiContext) => (c.api.replay ? ({ replayed: c.api.replay } as never) : intent())).use(
    idempotency(routes.createDeployment),
  );
  return { context, run: () => handler(apiEvent({ httpMethod: 'POST', path: '/api/v1/deployments', headers }), context) };
}

const created = async (): Promise<ApiResponse> => ({ status: 202, data: { id: randomUUID() }, headers: { Location: '/x' } });

it('claims the key, stores the first answer, and gives a repeat that answer instead of running the intent', async () => {
  const who = caller();
  const key = randomUUID();
  const first = post(who, key, created);
  const answer = (await first.run()) as { data: unknown };
  expect(first.context.api.idempotency).toMatchObject({ orgId: who.orgId, key });
  const intent = jest.fn(created);
  const again = post(who, key, intent);
  expect(await again.run()).toEqual({ replayed: { status: 202, data: answer.data, headers: { Location: '/x' } } });
  expect(intent).not.toHaveBeenCalled();
});

it('refuses the same key with another body: 422 IDEMPOTENCY_KEY_REUSED', async () => {
  const who = caller();
  const key = randomUUID();
  await post(who, key, created).run();
  await expect(post(who, key, created, { app_type: 'superset' }).run()).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
});

it('keeps keys apart per organization', async () => {
  const key = randomUUID();
  await post(caller(), key, created).run();
  const other = post(caller(), key, created);
  await other.run();
  expect(other.context.api.replay).toBeUndefined();
});

it('releases the key when the intent fails or answers an error, so a retry does the work', async () => {
  const who = caller();
  const key = randomUUID();
  await expect(
    post(who, key, async () => {
      throw new Error('failed');
    }).run(),
  ).rejects.toThrow('failed');
  await post(who, key, async () => ({ status: 409, data: null })).run();
  const retry = post(who, key, created);
  await retry.run();
  expect(retry.context.api.replay).toBeUndefined();
  expect(retry.context.api.idempotency?.key).toBe(key);
});

it('does nothing without the header, and refuses a key over 255 characters', async () => {
  const none = post(caller(), undefined, created);
  await none.run();
  expect(none.context.api.idempotency).toBeUndefined();
  await expect(post(caller(), 'k'.repeat(256), created).run()).rejects.toMatchObject({
    code: 'INVALID_REQUEST',
    options: { details: [{ field: 'Idempotency-Key', issue: 'must be 1-255 characters' }] },
  });
});
