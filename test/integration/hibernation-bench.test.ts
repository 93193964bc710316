/**
 * bench/hibernation-scheduler.ts at a small size, so its seeding, its round and its meter
 * cannot rot: every deployment due at the minute gets its hibernate operation through the
 * real ASL, in groups of an organization, none of those due an hour later is touched, and
 * a quiet minute is one Query.
 * The scheduler visits every due key of the table, so this suite has a table of its own
 * (other suites' rounds must not visit these deployments, nor this round theirs).
 */
import { findDue, installCapacityMeter, metering, scheduledRound, seedScheduled } from '../../bench/hibernation-round.js';
import { getDeployment } from '../../functions/adapters/dynamo/deployment-reads.js';
import { getOperation } from '../../functions/adapters/dynamo/operation-reads.js';
import { ensureTable } from '../../local/dynamodb-local.js';

process.env.TABLE_NAME = 'deployments-hibernation-bench-test';

const MINUTE = Date.parse('2031-03-03T05:00:00.000Z');

beforeAll(async () => {
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, 'deployments-hibernation-bench-test');
  installCapacityMeter();
});

it('starts a hibernate for each deployment due at the minute and for none due later; a quiet minute is one Query', async () => {
  const seeded = await seedScheduled({ due: 50, notDue: 50, orgs: 7, minuteMs: MINUTE });

  const quiet = await metering(() => scheduledRound(MINUTE - 60_000));
  expect(quiet.value.due).toBe(0);
  expect(quiet.cost.byCommand).toEqual({ Query: 1 });

  const found = await metering(() => findDue(MINUTE));
  expect(found.value).toBe(50);
  expect(found.cost.itemsQueried).toBe(50);
  expect(found.cost.readUnits).toBeGreaterThan(0);

  const busy = await metering(() => scheduledRound(MINUTE, { offsetMs: 1_000 }));
  expect(busy.value).toMatchObject({ minute: '2031-03-03T05:00:00.000Z', due: 50, results: { started: 50 } });
  // Each organization's transitions commit in groups (decision 327): at least one transaction
  // an organization, fewer than one a transition; the records came with the Query and the next
  // visits with the operations, so no visit reads or updates on its own.
  expect(busy.cost.byCommand.TransactWriteItems).toBeGreaterThanOrEqual(7);
  expect(busy.cost.byCommand.TransactWriteItems).toBeLessThan(50);
  expect(busy.cost.byCommand).not.toHaveProperty('GetItem');
  expect(busy.cost.byCommand).not.toHaveProperty('UpdateItem');

  for (const { orgId, id } of seeded.due) {
    const d = (await getDeployment(orgId, id, true))!;
    expect(d.last_operation_id).not.toBe('op_seed');
    const op = (await getOperation(orgId, d.last_operation_id!))!;
    expect(op).toMatchObject({ type: 'deployment.hibernate', resource_id: id });
    // Planned again: the schedule's wake, twelve hours on.
    expect(d.hibernation_due).toBe('2031-03-03T17:00:00.000Z');
  }
  for (const { orgId, id } of seeded.notDue) {
    const d = (await getDeployment(orgId, id, true))!;
    expect(d).toMatchObject({ last_operation_id: 'op_seed', in_flight: [], hibernation_due: '2031-03-03T06:00:00.000Z' });
  }
}, 240_000);
