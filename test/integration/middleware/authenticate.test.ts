/** middleware/authenticate.ts alone, on DynamoDB Local: the key's refusals in decision 28's order, then the caller and its limit headers. */
import middy from '@middy/core';
import { generateKey } from '../../../functions/core/api-keys.js';
import type { ApiContext } from '../../../functions/middleware/api-request.js';
import { authenticate } from '../../../functions/middleware/authenticate.js';
import { createKey, newOrgId, signingSecret } from '../../helpers/fixtures.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const handler = middy(async (_e: unknown, c: ApiContext) => c.api).use(authenticate());
const withKey = (headers: Record<string, string>, now = new Date()) => {
  const context = apiContext({ now });
  return { context, run: () => handler(apiEvent({ headers }), context) };
};

it('sets the caller (key id, organization, scopes, the stored record) and the rate-limit headers', async () => {
  const { key, record } = await createKey({ scopes: ['org:read'] });
  const { run } = withKey({ 'x-api-key': key });
  const api = await run();
  expect(api.caller).toMatchObject({
    keyId: record.id,
    orgId: record.org_id,
    scopes: ['org:read'],
    record: { id: record.id },
    actor: { type: 'api_key', id: record.id },
  });
  expect(Object.keys(api.limitHeaders).sort()).toEqual(
    expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
  );
  expect(api.input).toEqual({});
});

it('refuses no key with 401 MISSING_API_KEY (saying so when a bearer token came instead), touching nothing', async () => {
  for (const headers of [{}, { 'x-api-key': '' }] as Record<string, string>[]) {
    const { context, run } = withKey(headers);
    await expect(run()).rejects.toMatchObject({ code: 'MISSING_API_KEY', status: 401 });
    expect(context.api.caller).toBeUndefined();
  }
  const bearer = withKey({ authorization: 'Bearer abc.def.ghi' });
  const refused = await bearer.run().catch((e: unknown) => e);
  expect(refused).toMatchObject({ code: 'MISSING_API_KEY' });
  const plain = await withKey({})
    .run()
    .catch((e: unknown) => e);
  expect((refused as Error).message).not.toBe((plain as Error).message);
});

it('refuses a mistyped key and a well-formed unknown one alike (401 INVALID_API_KEY), with no caller', async () => {
  const unknown = generateKey({ orgId: newOrgId(), name: 'never saved', now: new Date() }, signingSecret()).key;
  for (const key of ['svc_sk_live_typo', unknown]) {
    const { context, run } = withKey({ 'x-api-key': key });
    await expect(run()).rejects.toMatchObject({ code: 'INVALID_API_KEY', status: 401 });
    expect(context.api.caller).toBeUndefined();
  }
});

it('refuses an expired key with 401 API_KEY_EXPIRED, but knows its caller (its use is logged) and sets no limit headers', async () => {
  const expiresAt = new Date(Date.now() + 60_000).toISOString();
  const { key, record } = await createKey({ expiresAt });
  const { context, run } = withKey({ 'x-api-key': key }, new Date(Date.parse(expiresAt)));
  await expect(run()).rejects.toMatchObject({ code: 'API_KEY_EXPIRED', status: 401 });
  expect(context.api.caller?.keyId).toBe(record.id);
  expect(context.api.limitHeaders).toEqual({});
});
