/**
 * The hibernation scheduler's round at scale (decisions 50, 260, 310): ready, awake
 * deployments written straight into the table, `due` of them with a schedule that
 * hibernates at the measured minute (their next visit that minute, as the write path
 * plans it) and `notDue` with one that hibernates an hour later (in the index, at a later
 * minute, so the Query's key condition has to pass them over). Then the scheduler's own
 * round (`runSchedule`, as the scheduled function runs it) at an injected clock that
 * starts at the minute and moves with real time, each DynamoDB call it makes counted
 * with the read and write units DynamoDB says it consumed. Used by
 * bench/hibernation-scheduler.ts and, at a small size, by its integration test.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../functions/adapters/dynamo/client.js';
import { duePage } from '../functions/adapters/dynamo/hibernation-store.js';
import { deploymentItem } from '../functions/adapters/dynamo/items.js';
import { runSchedule, type ScheduleRound } from '../functions/app/hibernation-scheduler.js';
import { type DeploymentRecord, newDeploymentRecord } from '../functions/core/deployments.js';
import { runAsFunction } from '../local/current-function.js';
import { watchDynamoCalls } from '../test/helpers/sdk-calls.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The measured minute: 18:00 UTC on a day far from the clock, so nothing else is due then. */
export const BUSY_MINUTE = Date.parse('2030-01-07T18:00:00.000Z');

export interface SeededRef {
  orgId: string;
  id: string;
}

export interface Seeded {
  due: SeededRef[];
  notDue: SeededRef[];
}

/** A ready, awake deployment whose schedule hibernates at `hour`:00 UTC, next visited then. */
function scheduled(orgId: string, name: string, hour: number, dueMs: number): DeploymentRecord {
  const at = new Date(dueMs - 24 * HOUR).toISOString();
  const d = newDeploymentRecord({ org_id: orgId, name, app_type: 'airflow', environment_id: 'env_default' }, at, 'op_seed');
  return {
    ...d,
    status: 'ready',
    in_flight: [],
    config: {
      ...d.config,
      hibernation: { schedules: [{ hibernate: `0 ${hour} * * *`, wake: `0 ${(hour + 12) % 24} * * *` }], time_zone: 'UTC' },
    },
    hibernation_due: new Date(dueMs).toISOString(),
  };
}

/**
 * Writes `due` + `notDue` deployments over `orgs` organizations (round robin), 25 to a
 * BatchWriteItem, `concurrency` batches at a time; `minuteMs` (a whole UTC hour, by
 * default BUSY_MINUTE) is the due ones' minute. The organizations' own items are left
 * out: the scheduler's writes start from an absent one as from a new organization.
 */
export async function seedScheduled(opts: {
  due: number;
  notDue: number;
  orgs: number;
  minuteMs?: number;
  orgPrefix?: string;
  concurrency?: number;
}): Promise<Seeded> {
  const minuteMs = opts.minuteMs ?? BUSY_MINUTE;
  const hour = new Date(minuteMs).getUTCHours();
  const out: Seeded = { due: [], notDue: [] };
  const seq = new Map<string, number>();
  const items: Record<string, unknown>[] = [];
  for (let i = 0; i < opts.due + opts.notDue; i++) {
    const isDue = i < opts.due;
    const orgId = `${opts.orgPrefix ?? 'org-hib'}-${i % opts.orgs}`;
    const d = isDue ? scheduled(orgId, `due-${i}`, hour, minuteMs) : scheduled(orgId, `later-${i}`, (hour + 1) % 24, minuteMs + HOUR);
    const n = (seq.get(orgId) ?? 0) + 1;
    seq.set(orgId, n);
    items.push(deploymentItem(d, n));
    (isDue ? out.due : out.notDue).push({ orgId, id: d.id });
  }
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  const worker = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
        [tableName()]: batch.map((Item) => ({ PutRequest: { Item } })),
      };
      while (request && Object.keys(request).length) {
        const res = await ddb.send(new BatchWriteCommand({ RequestItems: request }));
        request = res.UnprocessedItems as typeof request;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 8 }, worker));
  return out;
}

/** What a measured piece of work cost in DynamoDB: calls by operation, and the capacity units DynamoDB reported. */
export interface DynamoCost {
  calls: number;
  byCommand: Record<string, number>;
  /** Milliseconds spent waiting for each operation, summed over its calls. */
  msByCommand: Record<string, number>;
  readUnits: number;
  writeUnits: number;
  /** Items a Query handed back (its pages' Count). */
  itemsQueried: number;
}

const metered = new AsyncLocalStorage<DynamoCost>();
const READS = new Set(['Query', 'Scan', 'GetItem', 'BatchGetItem', 'TransactGetItems']);

/**
 * Counts the DynamoDB calls made inside `metering` (not those of the workflow engine's
 * executions, which run from its own HTTP requests), asking each for its consumed
 * capacity. Installed once per process.
 */
export function installCapacityMeter(): void {
  watchDynamoCalls('benchHibernationCapacity', async (call, send) => {
    const cost = metered.getStore();
    if (!cost) return send();
    cost.calls++;
    const name = call.command.replace(/Command$/, '');
    cost.byCommand[name] = (cost.byCommand[name] ?? 0) + 1;
    const t0 = performance.now();
    const out = await send({ ...call.input, ReturnConsumedCapacity: 'TOTAL' });
    cost.msByCommand[name] = Math.round((cost.msByCommand[name] ?? 0) + performance.now() - t0);
    const consumed = [out.ConsumedCapacity ?? []].flat() as {
      ReadCapacityUnits?: number;
      WriteCapacityUnits?: number;
      CapacityUnits?: number;
    }[];
    const reads = READS.has(name);
    for (const c of consumed) {
      // DynamoDB Local reports some calls' units only as a total: a read's for a read, else a write's.
      cost.readUnits += c.ReadCapacityUnits ?? (reads ? (c.CapacityUnits ?? 0) : 0);
      cost.writeUnits += c.WriteCapacityUnits ?? (reads ? 0 : (c.CapacityUnits ?? 0));
    }
    if (name === 'Query') cost.itemsQueried += Number(out.Count ?? 0);
    return out;
  });
}

export async function metering<T>(work: () => Promise<T>): Promise<{ value: T; cost: DynamoCost; ms: number }> {
  const cost: DynamoCost = { calls: 0, byCommand: {}, msByCommand: {}, readUnits: 0, writeUnits: 0, itemsQueried: 0 };
  const t0 = performance.now();
  const value = await metered.run(cost, work);
  return { value, cost, ms: performance.now() - t0 };
}

/** A clock that reads `minuteMs + offsetMs` now and moves with real time. */
const clockFrom = (atMs: number) => {
  const t0 = performance.now();
  return () => new Date(atMs + (performance.now() - t0));
};

/** Finding alone: the due deployments' keys, page by page, as the round reads them. */
export async function findDue(minuteMs: number, pageSize = 1000): Promise<number> {
  const before = new Date(minuteMs + MINUTE).toISOString();
  let found = 0;
  let after: Record<string, unknown> | undefined;
  do {
    const page = await duePage(before, pageSize, after);
    found += page.items.length;
    after = page.next;
  } while (after);
  return found;
}

/** One round of the scheduled function at `offsetMs` into the minute starting at `minuteMs`. */
export function scheduledRound(minuteMs: number, opts: { offsetMs?: number; concurrency?: number } = {}): Promise<ScheduleRound> {
  const now = clockFrom(minuteMs + (opts.offsetMs ?? 0));
  return runAsFunction('run-hibernation-schedule', () =>
    runSchedule({ now, ...(opts.concurrency === undefined ? {} : { concurrency: opts.concurrency }) }),
  );
}
