/**
 * An organization's concurrent operation waits are capped (app/wait-for-operation.ts,
 * adapters/dynamo/wait-slots.ts): the waits beyond the cap are answered 429 at once, the
 * slots come back when waits end, and a slot left by a crashed invocation lapses.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { waitSlotKey } from '../../contract/table/entities.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { createDeployment } from '../helpers/api.js';
import { platformOf } from '../helpers/call-platform.js';
import { call, createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

const CAP = 3;
process.env.WAITS_PER_ORGANIZATION = String(CAP);

// Every phase holds until the file ends, so the operations stay running and every wait lasts its timeout.
const gates = new Set<string>();
let ending = false;
const held: (() => void)[] = [];
workflowsOn(
  platformOf(
    (phase) => (t) =>
      ending
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            gates.add(`${t.deploymentId}:${phase}`);
            held.push(resolve);
          }),
  ),
  {
    retryIntervalMs: 5,
    release: () => {
      ending = true;
      for (const open of held) open();
    },
  },
);

async function runningCreate() {
  const { key, record } = await createKey();
  const created = await createDeployment(key);
  const { operation_id: opId, deployment_id: depId } = created.body.data;
  await eventually(async () => gates.has(`${depId}:provisioning_db`), 'the first phase');
  return { key, orgId: record.org_id, opId };
}

it(`holds the cap under ${CAP + 5} concurrent waits of one organization (the rest 429 at once), and frees the slots when the waits end`, async () => {
  const { key, opId } = await runningCreate();
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: CAP + 5 }, async () => {
      const res = await call('GET', `/operations/${opId}/wait?timeout=2`, { key });
      return { res, ms: Date.now() - started };
    }),
  );
  const waited = answers.filter((a) => a.res.status === 200);
  const refused = answers.filter((a) => a.res.status === 429);
  expect([waited.length, refused.length]).toEqual([CAP, 5]);
  for (const { res } of refused) {
    expect(res.body.error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      message: expect.stringContaining(`${CAP} concurrent operation waits`),
    });
    expect(res.headers['retry-after']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  }
  for (const { ms } of waited) expect(ms).toBeGreaterThanOrEqual(1900);

  // The waits ended and gave their slots back: a full set of waits fits again.
  const again = await Promise.all(Array.from({ length: CAP }, () => call('GET', `/operations/${opId}/wait?timeout=1`, { key })));
  expect(again.map((r) => r.status)).toEqual(Array(CAP).fill(200));
});

it("counts waits per organization: another organization's waits are not refused", async () => {
  const a = await runningCreate();
  const b = await runningCreate();
  const all = await Promise.all([
    ...Array.from({ length: CAP }, () => call('GET', `/operations/${a.opId}/wait?timeout=1`, { key: a.key })),
    ...Array.from({ length: CAP }, () => call('GET', `/operations/${b.opId}/wait?timeout=1`, { key: b.key })),
  ]);
  expect(all.map((r) => r.status)).toEqual(Array(2 * CAP).fill(200));
});

it('frees a slot whose lease lapsed (its invocation crashed), and refuses while a live lease holds every slot', async () => {
  const { key, orgId, opId } = await runningCreate();
  const past = Math.floor(Date.now() / 1000) - 1;
  const future = past + 600;
  for (let slot = 0; slot < CAP; slot++) {
    await ddb.send(
      new PutCommand({ TableName: tableName(), Item: { ...waitSlotKey(orgId, slot), holder: 'crashed', lease_until: future } }),
    );
  }
  expect((await call('GET', `/operations/${opId}/wait?timeout=1`, { key })).status).toBe(429);
  await ddb.send(new PutCommand({ TableName: tableName(), Item: { ...waitSlotKey(orgId, 1), holder: 'crashed', lease_until: past } }));
  expect((await call('GET', `/operations/${opId}/wait?timeout=1`, { key })).status).toBe(200);
});
