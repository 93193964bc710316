/**
 * middleware/auth-failure-limit.ts alone, on DynamoDB Local: an INVALID_API_KEY refusal of
 * a well-formed key counts against the client's address; past the limit the address is
 * refused with 429 before the rest of the stack runs, until its window ends.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { apiError } from '../../../contract/errors.js';
import { authFailureKey } from '../../../contract/table/entities.js';
import { countAuthFailure } from '../../../functions/adapters/dynamo/auth-failure-counter.js';
import { ddb, tableName } from '../../../functions/adapters/dynamo/client.js';
import { generateLegacyKey, invalidKey, KEY_PREFIX } from '../../../functions/core/api-keys.js';
import { authFailureWindow } from '../../../functions/core/rate-limits.js';
import { authFailureLimit } from '../../../functions/middleware/auth-failure-limit.js';
import { newOrgId } from '../../helpers/fixtures.js';
import { injectFaults } from '../../helpers/inject-faults.js';
import { apiContext, apiEvent, logged } from '../../helpers/middleware-request.js';

const LIMIT = 3;
// Read once, by the first request: set before it.
process.env.AUTH_FAILURE_LIMIT = String(LIMIT);

/**
 * A key of the earlier (CRC) form and a right checksum that no one was ever given: only
 * those cost a read, so only those count (a signed key proves itself, a forged one is
 * refused before any read).
 */
const unknownKey = () => generateLegacyKey({ orgId: newOrgId(), name: 'never saved', now: new Date() }).key;
const mistypedKey = `${KEY_PREFIX}${'a'.repeat(49)}`;
let nextAddress = 10;
/** A fresh documentation address (RFC 5737) per case: the limit is per address. TEST-NET-1, which the other limiter tests (203.0.113.x) do not use: the counts share a table. */
const newAddress = () => `192.0.2.${nextAddress++}`;

/**
 * One request from `address` through the limit around a stand-in for `authenticate`:
 * `refusal` is what it throws (none: the key was accepted). Whether it was reached, and
 * what came out.
 */
async function send(address: string | undefined, key: string | undefined, refusal?: Error, now = new Date()) {
  const authenticate = jest.fn(async () => {
    if (refusal) throw refusal;
    return 'accepted';
  });
  const handler = middy(authenticate).use(authFailureLimit());
  const event = apiEvent({
    headers: key === undefined ? {} : { 'x-api-key': key },
    requestContext: { identity: { sourceIp: address } } as never,
  });
  const outcome = await handler(event, apiContext({ now })).catch((e: unknown) => e);
  return { reached: authenticate.mock.calls.length === 1, outcome };
}
const failFrom = (address: string, key = unknownKey()) => send(address, key, invalidKey());

const counted = async (address: string, now = new Date()) => {
  const { Item } = await ddb.send(
    new GetCommand({ TableName: tableName(), Key: authFailureKey(address, authFailureWindow(now).start), ConsistentRead: true }),
  );
  return Number(Item?.n ?? 0);
};

it(`lets ${LIMIT} unknown keys through to their 401, then refuses the address with 429 before authenticating even a good key`, async () => {
  const address = newAddress();
  for (let i = 0; i < LIMIT; i++) {
    const { reached, outcome } = await failFrom(address);
    expect(reached).toBe(true);
    expect(outcome).toMatchObject({ code: 'INVALID_API_KEY', status: 401 });
  }
  expect(await counted(address)).toBe(LIMIT);

  const now = new Date();
  const { reached, outcome } = await send(address, unknownKey(), undefined, now);
  expect(reached).toBe(false);
  const windowEnd = authFailureWindow(now).end;
  expect(outcome).toMatchObject({
    code: 'RATE_LIMIT_EXCEEDED',
    status: 429,
    message: expect.stringContaining(`the limit of ${LIMIT} requests with an unknown API key per 10 minutes from this address`),
    options: {
      headers: {
        'Retry-After': String(windowEnd - Math.floor(now.getTime() / 1000)),
        'X-RateLimit-Limit': String(LIMIT),
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': String(windowEnd),
      },
    },
  });
  // Refused from memory: the refusal itself is not counted.
  expect(await counted(address)).toBe(LIMIT);

  expect(await send(newAddress(), unknownKey())).toEqual({ reached: true, outcome: 'accepted' });
});

it('lets the address in again once its window has ended', async () => {
  const address = newAddress();
  for (let i = 0; i < LIMIT; i++) await failFrom(address);
  expect((await send(address, unknownKey())).reached).toBe(false);
  const windowEnd = authFailureWindow(new Date()).end;
  expect(await send(address, unknownKey(), undefined, new Date(windowEnd * 1000))).toEqual({ reached: true, outcome: 'accepted' });
});

it('blocks on the shared counter: an address counted elsewhere (another Lambda instance) is blocked at its next failure here', async () => {
  const address = newAddress();
  const window = authFailureWindow(new Date());
  for (let i = 0; i < LIMIT - 1; i++) await countAuthFailure(address, window.start, window.end);
  expect((await send(address, unknownKey())).reached).toBe(true);
  expect((await failFrom(address)).outcome).toMatchObject({ code: 'INVALID_API_KEY' });
  expect((await send(address, unknownKey())).reached).toBe(false);
});

it('counts nothing but an unknown well-formed key: not a mistyped one, another refusal, a fault, or a request without an address', async () => {
  const address = newAddress();
  const others = [
    () => failFrom(address, mistypedKey),
    () => send(address, undefined, invalidKey()),
    () => send(address, unknownKey(), apiError('API_KEY_EXPIRED', { expiredAt: '2020-01-01T00:00:00Z' })),
    () => send(address, unknownKey(), new Error('fault')),
  ];
  for (const other of others) for (let i = 0; i < LIMIT; i++) expect((await other()).reached).toBe(true);
  expect(await counted(address)).toBe(0);
  for (let i = 0; i <= LIMIT; i++) expect(await send(undefined, unknownKey(), invalidKey())).toMatchObject({ reached: true });
  expect((await send(address, unknownKey())).reached).toBe(true);
});

it('keeps the 401 when the counter cannot be written, and logs a warning', async () => {
  const address = newAddress();
  const injection = injectFaults(ddb, {
    commands: ['UpdateItemCommand'],
    share: 1,
    seed: 1,
    attempts: 1,
    surfaceEvery: 1,
    kinds: ['InternalServerError'],
  });
  try {
    const { result, lines } = await logged(() => failFrom(address));
    expect(result.outcome).toMatchObject({ code: 'INVALID_API_KEY', status: 401 });
    expect(lines).toEqual([expect.objectContaining({ level: 'WARN', message: 'could not count a failed authentication' })]);
    expect(injection.faults.length).toBeGreaterThan(0);
  } finally {
    injection.off();
  }
  expect(await counted(address)).toBe(0);
});
