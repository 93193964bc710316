/**
 * Decision 130: an organization holds at most KEYS_PER_ORGANIZATION keys, counted on its
 * item in the same transaction as each key's write (adapters/dynamo/api-key-store.ts).
 * Every path that mints keys is refused past it (the keys CLI, the dashboard's create and
 * rotate); a revocation frees a place, a rotation is net zero, and an organization whose
 * keys predate the count starts from 0.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError, ERRORS } from '../../contract/errors.js';
import { orgKey } from '../../contract/table/entities.js';
import { listKeys } from '../../functions/adapters/dynamo/api-key-store.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { apiKeyItem } from '../../functions/adapters/dynamo/items.js';
import { createApiKey } from '../../functions/app/api-keys.js';
import { generateKey } from '../../functions/core/api-keys.js';
import { runKeysCommand } from '../../local/keys-cli.js';
import { type DashboardSession, startDashboardSession, TEST_PASSWORD } from '../helpers/dashboard-session.js';
import { call, newOrgId, signingSecret } from '../helpers/fixtures.js';

const CAP = 3;
process.env.KEYS_PER_ORGANIZATION = String(CAP);
const REFUSAL = ERRORS.KEY_LIMIT_REACHED.message({ limit: CAP });

async function keys(...argv: string[]): Promise<{ code: number; lines: string[]; errors: string[] }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await runKeysCommand(argv, { out: (l) => lines.push(l), fail: (l) => errors.push(l) });
  return { code, lines, errors };
}

/** Creates a key with the CLI; its id. */
async function cliCreate(org: string, name = 'k'): Promise<string> {
  const { code, lines } = await keys('create', '--org', org, '--name', name, '--json');
  expect({ code, lines: lines.length }).toEqual({ code: 0, lines: 1 });
  return JSON.parse(lines[0]!).id;
}

const keyCount = async (org: string) =>
  (await ddb.send(new GetCommand({ TableName: tableName(), Key: orgKey(org), ConsistentRead: true }))).Item?.key_count;

/** The organization's count, how many keys it has, and how many of them are revoked. */
async function holdings(org: string) {
  const all = await listKeys(org);
  return { count: await keyCount(org), keys: all.length, revoked: all.filter((k) => k.revoked_at).length };
}

describe('the keys CLI', () => {
  it('refuses the key past the limit with one line, exit 1, and changes nothing', async () => {
    const org = newOrgId();
    for (let i = 0; i < CAP; i++) await cliCreate(org);
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP, revoked: 0 });

    const refused = await keys('create', '--org', org, '--name', 'one too many');
    expect(refused).toEqual({ code: 1, lines: [], errors: [REFUSAL] });
    expect(REFUSAL).toBe('An organization may hold at most 3 API keys; revoke one to free a place.');
    const json = await keys('create', '--org', org, '--name', 'one too many', '--json');
    expect(json).toEqual({ code: 1, lines: [], errors: [REFUSAL] });
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP, revoked: 0 });
  });

  it('frees a place on revocation, once: revoking again frees nothing', async () => {
    const org = newOrgId();
    const ids: string[] = [];
    for (let i = 0; i < CAP; i++) ids.push(await cliCreate(org));
    expect((await keys('revoke', ids[0]!)).code).toBe(0);
    expect(await keyCount(org)).toBe(CAP - 1);
    expect((await keys('revoke', ids[0]!)).code).toBe(0);
    expect(await keyCount(org)).toBe(CAP - 1);
    await cliCreate(org, 'in the freed place');
    expect((await keys('create', '--org', org, '--name', 'x')).code).toBe(1);
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP + 1, revoked: 1 });
  });

  it('rotates at the limit: the new key takes the old one’s place, and revoking the old one frees no second place', async () => {
    const org = newOrgId();
    const ids: string[] = [];
    for (let i = 0; i < CAP; i++) ids.push(await cliCreate(org));
    const rotated = await keys('rotate', ids[0]!, '--grace', '600', '--json');
    expect(rotated.code).toBe(0);
    const next = JSON.parse(rotated.lines[0]!) as { id: string; key: string };
    expect(await keyCount(org)).toBe(CAP);
    expect((await keys('create', '--org', org, '--name', 'x')).errors).toEqual([REFUSAL]);

    // The old key works during its grace, yet holds no place: revoking it frees none.
    expect((await keys('revoke', ids[0]!)).code).toBe(0);
    expect(await keyCount(org)).toBe(CAP);
    expect((await keys('create', '--org', org, '--name', 'x')).errors).toEqual([REFUSAL]);

    // The new key holds the place: revoking it frees one.
    expect((await keys('revoke', next.id)).code).toBe(0);
    expect(await keyCount(org)).toBe(CAP - 1);
    await cliCreate(org);
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP + 2, revoked: 2 });
  });

  it('refuses rotating a key rotated already (decision 229), and rotates its successor in its place at the limit', async () => {
    const org = newOrgId();
    const ids: string[] = [];
    for (let i = 0; i < CAP; i++) ids.push(await cliCreate(org));
    expect((await keys('rotate', ids[0]!, '--grace', '600')).code).toBe(0);
    const again = await keys('rotate', ids[0]!, '--grace', '600');
    expect(again).toMatchObject({ code: 1, lines: [] });
    const successor = /its successor is (key_\w+)/.exec(again.errors[0] ?? '')?.[1];
    expect(successor).toBeDefined();
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP + 1, revoked: 0 });
    // The successor takes its predecessor's place, and its own successor takes it in turn: never one more.
    expect((await keys('rotate', successor!, '--grace', '600')).code).toBe(0);
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP + 2, revoked: 0 });
  });
});

it('never lets concurrent creations exceed the limit', async () => {
  const org = newOrgId();
  const results = await Promise.allSettled(
    Array.from({ length: CAP + 5 }, (_, i) => createApiKey({ orgId: org, name: `racer ${i}`, now: new Date() })),
  );
  const made = results.filter((r) => r.status === 'fulfilled');
  const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  expect(made).toHaveLength(CAP);
  expect(refused.map((e) => (e instanceof ApiError ? `${e.status} ${e.code}` : String(e)))).toEqual(Array(5).fill('409 KEY_LIMIT_REACHED'));
  expect(await holdings(org)).toEqual({ count: CAP, keys: CAP, revoked: 0 });
});

it('counts an organization whose keys predate the count from 0: those keys hold no place, and revoking one frees none', async () => {
  const org = newOrgId();
  // Written as key items were before the count: no mark, and no count on the organization.
  const before = Array.from({ length: CAP }, (_, i) => generateKey({ orgId: org, name: `old ${i}`, now: new Date() }, signingSecret()));
  for (const { record } of before) await ddb.send(new PutCommand({ TableName: tableName(), Item: apiKeyItem(record) }));
  expect((await call('GET', '/key', { key: before[0]!.key })).status).toBe(200);

  for (let i = 0; i < CAP; i++) await cliCreate(org);
  expect((await keys('create', '--org', org, '--name', 'x')).errors).toEqual([REFUSAL]);
  expect((await keys('revoke', before[0]!.record.id)).code).toBe(0);
  expect(await keyCount(org)).toBe(CAP);
  expect((await keys('create', '--org', org, '--name', 'x')).errors).toEqual([REFUSAL]);
});

describe('the dashboard API', () => {
  let session: DashboardSession;
  const org = newOrgId();
  let admin: Record<string, string>;

  beforeAll(async () => {
    session = await startDashboardSession();
    await session.users(['create', '--org', org, '--email', 'keycap-admin@example.test', '--role', 'admin', '--password', TEST_PASSWORD]);
    admin = { Authorization: `Bearer ${await session.signIn('keycap-admin@example.test')}` };
  });
  afterAll(() => session.close());

  it('refuses creating past the limit with 409 KEY_LIMIT_REACHED, rotates at it, and frees a place on revocation', async () => {
    const ids: string[] = [];
    for (let i = 0; i < CAP; i++) {
      const made = await session.send('POST', '/keys', admin, { name: `dash ${i}` });
      expect(made.status).toBe(201);
      ids.push(made.body.data.id);
    }
    const refused = await session.send('POST', '/keys', admin, { name: 'one too many' });
    expect({ status: refused.status, error: refused.body.error }).toMatchObject({
      status: 409,
      error: { code: 'KEY_LIMIT_REACHED', message: REFUSAL },
    });
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP, revoked: 0 });

    const rotated = await session.send('POST', `/keys/${ids[0]}/rotate`, admin, { grace_seconds: 60 });
    expect(rotated.status).toBe(201);
    expect(await keyCount(org)).toBe(CAP);
    // A key rotated already is not rotated again (decision 229): its successor is.
    const again = await session.send('POST', `/keys/${ids[0]}/rotate`, admin, { grace_seconds: 60 });
    expect({ status: again.status, code: again.body.error.code }).toEqual({ status: 409, code: 'API_KEY_NOT_ROTATABLE' });

    // The rotated-away key's revocation frees nothing; the new key's frees its place.
    expect((await session.send('DELETE', `/keys/${ids[0]}`, admin)).status).toBe(200);
    expect((await session.send('POST', '/keys', admin, { name: 'x' })).status).toBe(409);
    expect((await session.send('DELETE', `/keys/${rotated.body.data.id}`, admin)).status).toBe(200);
    expect((await session.send('POST', '/keys', admin, { name: 'in the freed place' })).status).toBe(201);
    expect(await holdings(org)).toEqual({ count: CAP, keys: CAP + 2, revoked: 2 });
  });
});
