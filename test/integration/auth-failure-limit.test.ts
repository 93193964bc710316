/**
 * The per-address limit on failed authentications (security review): a well-formed key
 * of the earlier (CRC-checked) form that matches nothing costs a database read, so an
 * address that sends too many is refused with 429 before any lookup of such a key, while
 * other addresses, mistyped or forged keys, accepted keys and signed keys (which only the
 * service can make) are unaffected. Through the real gateway and DynamoDB Local.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyKey, PARTITIONS } from '../../contract/table/entities.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { generateKey, generateLegacyKey, KEY_PREFIX } from '../../functions/core/api-keys.js';
import { dynamoCallsOf, partitionKeysOf } from '../helpers/dynamo-calls.js';
import { call, createKey, newOrgId } from '../helpers/fixtures.js';

const LIMIT = 3;
process.env.AUTH_FAILURE_LIMIT = String(LIMIT);

/** A guess: a key of the earlier form with a right CRC (anyone can compute one) that no one was ever given. */
const unknownKey = () => generateLegacyKey({ orgId: newOrgId(), name: 'never saved', now: new Date() }).key;
/** A key of the signed form whose HMAC is made under a secret the service does not hold. */
const forgedKey = () => generateKey({ orgId: newOrgId(), name: 'forged', now: new Date() }, Buffer.alloc(32, 1)).key;
let nextAddress = 10;
/** A fresh documentation address (RFC 5737) per test: the limit is per address. */
const address = () => `203.0.113.${nextAddress++}`;

it(`refuses an address with 429 after ${LIMIT} unknown keys, before looking up even a valid key of the earlier form; other addresses go on`, async () => {
  const attacker = address();
  const { key, record } = await createKey({ legacy: true });
  for (let i = 0; i < LIMIT; i++) {
    const res = await call('GET', '/key', { key: unknownKey(), sourceIp: attacker });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  }
  const { result: refused, calls } = await dynamoCallsOf(() => call('GET', '/key', { key, sourceIp: attacker }));
  expect(refused.status).toBe(429);
  expect(refused.body.error).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', message: expect.stringContaining('from this address') });
  const retryAfter = Number(refused.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(600);
  // Refused before the key was looked up: no call at all, and the key was not stamped as used.
  expect(calls).toEqual([]);
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(record.hash), ConsistentRead: true }));
  expect(Item?.last_used_at ?? null).toBeNull();

  const elsewhere = await call('GET', '/key', { key, sourceIp: address() });
  expect(elsewhere.status).toBe(200);
  expect(elsewhere.body.data.id).toBe(record.id);
});

it('admits a valid signed key from a blocked address: its HMAC proves it was issued, so no guesser can lock it out', async () => {
  const shared = address();
  const { key, record } = await createKey();
  for (let i = 0; i < LIMIT; i++) expect((await call('GET', '/key', { key: unknownKey(), sourceIp: shared })).status).toBe(401);
  expect((await call('GET', '/key', { key: unknownKey(), sourceIp: shared })).status).toBe(429);
  const res = await call('GET', '/key', { key, sourceIp: shared });
  expect(res.status).toBe(200);
  expect(res.body.data.id).toBe(record.id);
  // …without X-Forwarded-For and with one naming another client alike: the address is API Gateway's.
  const forwarded = await call('GET', '/key', { key, sourceIp: shared, headers: { 'X-Forwarded-For': '198.51.100.7' } });
  expect(forwarded.status).toBe(200);
});

it('does not count forged signed-form keys: refused without a read, against no one', async () => {
  const from = address();
  const { key } = await createKey({ legacy: true });
  for (let i = 0; i < LIMIT * 3; i++) {
    const { result, calls } = await dynamoCallsOf(() => call('GET', '/key', { key: forgedKey(), sourceIp: from }));
    expect(result.status).toBe(401);
    expect(calls).toEqual([]);
  }
  expect((await call('GET', '/key', { key, sourceIp: from })).status).toBe(200);
});

it('does not count mistyped keys (refused by their checksum without a read)', async () => {
  const from = address();
  const { key } = await createKey();
  const mistyped = `${KEY_PREFIX}${'a'.repeat(49)}`;
  for (let i = 0; i < LIMIT * 3; i++) expect((await call('GET', '/key', { key: mistyped, sourceIp: from })).status).toBe(401);
  expect((await call('GET', '/key', { key, sourceIp: from })).status).toBe(200);
});

it('adds no DynamoDB call to a request whose key is accepted, and counts a refused one on its address only', async () => {
  const from = address();
  const { key } = await createKey();
  const accepted = await dynamoCallsOf(() => call('GET', '/key', { key, sourceIp: from }));
  expect(accepted.result.status).toBe(200);
  expect(accepted.calls.flatMap(partitionKeysOf).filter((pk) => pk.startsWith(PARTITIONS.authFailures))).toEqual([]);

  const refused = await dynamoCallsOf(() => call('GET', '/key', { key: unknownKey(), sourceIp: from }));
  expect(refused.result.status).toBe(401);
  expect(refused.calls.flatMap(partitionKeysOf).filter((pk) => pk.startsWith(PARTITIONS.authFailures))).toEqual([
    `${PARTITIONS.authFailures}${from}`,
  ]);
});
