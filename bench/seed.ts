/**
 * Seeds one organization with a realistic history of N operations, fast: the items are
 * built by the write path's own builders (deploymentItem, operationItem) in the final
 * state the lifecycle transactions would leave them in, written with BatchWriteItem, and
 * the organization item gets exactly the counters those transactions would have summed.
 *
 * The history (deterministic, seeded PRNG):
 *  - one deployment per 50 operations; one long-lived airflow deployment carries 20% of
 *    them (years of DAG syncs), the rest are spread over the others;
 *  - each deployment starts with its deployment.create; 4% of creates fail or are
 *    canceled (deployment failed); 30% of deployments end with a deployment.destroy;
 *  - in between: dag_sync.trigger (airflow) and app_user.provision, 96% succeeded,
 *    3% failed, 1% canceled; the newest operation is still running;
 *  - one operation a minute, each finished within 20 s, so sequence order is time order.
 *
 * And as many events (decision 37) as operations, in the same organization: items of the
 * shape eventWrites (event-log.ts) puts, built by the same eventItem, each carrying the record view of one of
 * the history's operations or deployments; 65% operation.updated, 15% operation.created,
 * 15% deployment.updated, 5% deployment.created; the org item gets evt_seq and
 * evt_seq_<type>. (run.ts checks one seeded event's attributes against a real write's.)
 *
 * And the long-lived deployment has been reconfigured REVISIONS times (decision 43): its
 * revision items, built by revisionItem, alternate its size, and its record says it is at
 * the last one. The deployment.update operations that applied them are not seeded (no list
 * measured here reads them, and they would change the operations' mix above).
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { phaseFailed } from '../contract/errors.js';
import {
  type AppType,
  DEFAULT_ENVIRONMENT_ID,
  type DeploymentStatus,
  type EventType,
  type OperationStatus,
  type OperationType,
} from '../contract/schemas.js';
import { eventTypeSeqAttr, orgKey, typeSeqAttr } from '../contract/table/entities.js';
import { ddb, tableName } from '../functions/adapters/dynamo/client.js';
import {
  deploymentCountedIn,
  deploymentItem,
  eventItem,
  nameItem,
  operationCountedIn,
  operationItem,
  revisionItem,
} from '../functions/adapters/dynamo/items.js';
import { statusCountItems } from '../functions/adapters/dynamo/status-counts.js';
import { type DeploymentRecord, deploymentUrl, deploymentView, newDeploymentRecord } from '../functions/core/deployments.js';
import { newOperationId, type OperationRecord, operationView, PHASE_MESSAGES, PHASES } from '../functions/core/operations.js';
import { windowsAt } from '../functions/core/rate-limits.js';
import { CONFIG_DEFAULTS } from '../functions/lib/config.js';

type Item = Record<string, unknown>;
type Ending = 'succeeded' | 'failed' | 'canceled' | 'running';

/** mulberry32: small, fast, deterministic (the fault injection in the tests repeats its runs with it too). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface PlannedOp {
  dep: number;
  local: number;
  pos: number;
  type: OperationType;
  ending: Ending;
}

interface PlannedDep {
  appType: AppType;
  createOk: boolean;
  destroyed: boolean;
  count: number;
}

export interface SeededOrg {
  orgId: string;
  operations: number;
  deployments: number;
  /** All items (operations, deployments, name reservations), the org item excluded. */
  items: Item[];
  org: Item;
  /** The deployment with the most operations, and how many. */
  busiest: { id: string; ops: number };
  opsByType: Record<string, number>;
  opsByStatus: Record<string, number>;
  deploymentsByStatus: Record<string, number>;
  /** Status-count bucket items (status-counts.ts). */
  countItems: number;
  /** Events seeded (= operations), and how many of each type. */
  events: number;
  eventsByType: Record<string, number>;
  /** The long-lived deployment as stored, at revision REVISIONS. */
  revised: DeploymentRecord;
}

/** How many revisions the long-lived deployment has, so the revisions list (decision 43) is measured at 10,000. */
export const REVISIONS = 10_000;

const BASE = Date.parse('2025-01-06T00:00:00.000Z');
const MINUTE = 60_000;
/** The domain the local stack serves deployments under when APP_DOMAIN is not set. */
const APP_DOMAIN = CONFIG_DEFAULTS.APP_DOMAIN;

/** Builds the organization's records in the state the real write path leaves them in. */
export function buildOrg(orgId: string, n: number, seed: number): SeededOrg {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const nDeps = Math.max(2, Math.round(n / 50));

  // ---- plan: each deployment's fate and its number of operations ----------------
  const deps: PlannedDep[] = [];
  for (let i = 0; i < nDeps; i++) {
    if (i === 0) {
      deps.push({ appType: 'airflow', createOk: true, destroyed: false, count: 1 });
      continue;
    }
    const createOk = rnd() >= 0.04;
    deps.push({ appType: rnd() < 0.6 ? 'airflow' : 'superset', createOk, destroyed: rnd() < 0.3, count: 1 });
  }
  for (const d of deps) d.count = 1 + (d.destroyed ? 1 : 0);
  let left = n - deps.reduce((s, d) => s + d.count, 0);
  if (left < 0) throw new Error(`too few operations (${n}) for ${nDeps} deployments`);
  const hotExtra = Math.min(left, Math.round(n * 0.2) - deps[0]!.count);
  deps[0]!.count += hotExtra;
  left -= hotExtra;
  const growable = deps.map((d, i) => (i > 0 && d.createOk ? i : -1)).filter((i) => i > 0);
  if (growable.length === 0) growable.push(0);
  for (; left > 0; left--) deps[pick(growable)]!.count++;

  // ---- each deployment's operations, placed on a shared timeline ----------------
  const planned: PlannedOp[] = [];
  const middleEnding = (): Ending => {
    const r = rnd();
    return r < 0.96 ? 'succeeded' : r < 0.99 ? 'failed' : 'canceled';
  };
  deps.forEach((d, i) => {
    const start = i === 0 ? 0 : rnd() * 0.95;
    const end = d.destroyed ? start + (1 - start) * (0.05 + 0.95 * rnd()) : 1;
    const inner = Array.from({ length: d.count - 1 - (d.destroyed ? 1 : 0) }, () => start + (end - start) * rnd()).sort((a, b) => a - b);
    const positions = [start, ...inner, ...(d.destroyed ? [end] : [])];
    positions.forEach((pos, local) => {
      let type: OperationType;
      let ending: Ending;
      if (local === 0) {
        type = 'deployment.create';
        ending = d.createOk ? 'succeeded' : rnd() < 0.75 ? 'failed' : 'canceled';
      } else if (d.destroyed && local === positions.length - 1) {
        type = 'deployment.destroy';
        ending = rnd() < 0.97 ? 'succeeded' : 'failed';
      } else {
        type = d.appType === 'airflow' && rnd() < 0.7 ? 'dag_sync.trigger' : 'app_user.provision';
        ending = middleEnding();
      }
      planned.push({ dep: i, local, pos, type, ending });
    });
  });
  // The hot deployment's newest operation is the organization's newest, and still running.
  const hotLast = planned.filter((p) => p.dep === 0).at(-1)!;
  if (hotLast.local > 0) {
    hotLast.pos = 2;
    hotLast.ending = 'running';
  }
  planned.sort((a, b) => a.pos - b.pos || a.dep - b.dep || a.local - b.local);

  // ---- replay the history in sequence order, as the transactions would ------------
  const records: { d: DeploymentRecord; seq: number; nameFreed: boolean }[] = [];
  const byDep = new Map<number, { d: DeploymentRecord; seq: number; nameFreed: boolean }>();
  const ops: Item[] = [];
  const typeSeq: Record<string, number> = {};
  const nOp: Partial<Record<OperationStatus, number>> = { queued: 0 };
  const nDep: Partial<Record<DeploymentStatus, number>> = { provisioning: 0 };
  const bump = <S extends string>(m: Partial<Record<S, number>>, s: S, by = 1) => {
    m[s] = (m[s] ?? 0) + by;
  };
  const moveDep = (r: { d: DeploymentRecord }, to: DeploymentStatus, at: string) => {
    bump(nDep, r.d.status, -1);
    bump(nDep, to);
    r.d.status = to;
    r.d.updated_at = at;
  };
  let lastAt = '';
  let createTimes: number[] = [];
  const opRecords: OperationRecord[] = [];

  planned.forEach((p, idx) => {
    const seq = idx + 1;
    const t = BASE + seq * MINUTE;
    const at = new Date(t).toISOString();
    lastAt = at;
    const opId = newOperationId();
    let rec = byDep.get(p.dep);
    if (p.type === 'deployment.create') {
      const appType = deps[p.dep]!.appType;
      const d: DeploymentRecord = {
        ...newDeploymentRecord(
          {
            org_id: orgId,
            name: `${appType}-${p.dep.toString(16).padStart(6, '0')}`,
            app_type: appType,
            environment_id: DEFAULT_ENVIRONMENT_ID,
          },
          at,
          opId,
        ),
        op_counts: {},
        seq: records.length + 1,
      };
      rec = { d, seq: records.length + 1, nameFreed: false };
      records.push(rec);
      byDep.set(p.dep, rec);
      bump(nDep, 'provisioning');
      createTimes.push(t);
    } else {
      if (!rec) throw new Error('operation before its deployment.create');
      rec.d.op_count += 1;
      rec.d.last_operation_id = opId;
      rec.d.updated_at = at;
      if (p.type === 'deployment.destroy') moveDep(rec, 'destroying', at);
    }
    const d = rec.d;
    typeSeq[p.type] = (typeSeq[p.type] ?? 0) + 1;
    d.op_counts = { ...d.op_counts, [p.type]: (d.op_counts?.[p.type] ?? 0) + 1 };

    const work = PHASES[p.type].work;
    const started = new Date(t + 1_000).toISOString();
    const ended = new Date(t + 20_000).toISOString();
    const op: OperationRecord = {
      id: opId,
      org_id: orgId,
      type: p.type,
      status: 'queued',
      phase: 'queued',
      message: PHASE_MESSAGES.queued!,
      resource_id: d.id,
      requested_at: at,
      ...(p.type === 'app_user.provision'
        ? { params: { username: `user${seq}`, email: `user${seq}@example.com`, role: pick(['admin', 'editor', 'viewer'] as const) } }
        : {}),
    };
    // queued -> running (first phase)
    Object.assign(op, { status: 'running', phase: work[0], message: PHASE_MESSAGES[work[0]!], started_at: started });
    bump(nOp, 'running');
    if (p.ending === 'succeeded') {
      const done = PHASES[p.type].done;
      Object.assign(op, { status: 'succeeded', phase: done, message: PHASE_MESSAGES[done], ended_at: ended });
      if (p.type === 'deployment.create') {
        op.result = { url: deploymentUrl(d, APP_DOMAIN) };
        moveDep(rec, 'ready', ended);
      }
      if (p.type === 'deployment.destroy') {
        moveDep(rec, 'destroyed', ended);
        rec.nameFreed = true;
      }
    } else if (p.ending === 'failed') {
      Object.assign(op, {
        status: 'failed',
        ended_at: ended,
        error: { code: phaseFailed(op.phase), message: 'The platform reported an error.' },
      });
      if (p.type === 'deployment.create' || p.type === 'deployment.destroy') moveDep(rec, 'failed', ended);
    } else if (p.ending === 'canceled') {
      Object.assign(op, { status: 'canceled', message: 'Canceled by request.', ended_at: ended });
      if (p.type === 'deployment.create') moveDep(rec, 'failed', ended);
    }
    if (op.status !== 'running') bump(nOp, 'running', -1);
    if (op.status !== 'running') bump(nOp, op.status);
    op.positions = { all: seq, type: typeSeq[p.type]!, resource: d.op_count, resourceType: d.op_counts[p.type]! };
    ops.push(operationItem(op, op.positions));
    opRecords.push(op);
  });

  // The status counts the transactions would have kept, per bucket of every counted list.
  const counted = [
    ...opRecords.map((op) => ({ countedIn: operationCountedIn(op), status: op.status })),
    ...records.map((r) => ({ countedIn: deploymentCountedIn(r.d), status: r.d.status })),
  ];
  const countItems = statusCountItems(counted);
  const items: Item[] = [...ops, ...countItems];
  const revised = records[0]!.d;
  items.push(...revisionsOf(revised, opRecords.find((op) => op.resource_id === revised.id)!.id, REVISIONS));
  for (const r of records) {
    items.push(deploymentItem(r.d, r.seq));
    if (!r.nameFreed) items.push(nameItem(orgId, r.d.name, r.d.id));
  }

  // ---- the event log: n events, each about one record of the history --------------
  const depById = new Map(records.map((r) => [r.d.id, r.d]));
  const evtTypeSeq: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const sequence = i + 1;
    const op = opRecords[i]!;
    const r = rnd();
    const type: EventType =
      r < 0.65 ? 'operation.updated' : r < 0.8 ? 'operation.created' : r < 0.95 ? 'deployment.updated' : 'deployment.created';
    const object = type.startsWith('operation.') ? operationView(op) : deploymentView(depById.get(op.resource_id)!, APP_DOMAIN);
    const data = type.endsWith('.updated')
      ? { object, previous: type === 'operation.updated' ? { status: 'running', phase: 'queued' } : { status: 'provisioning' } }
      : { object };
    evtTypeSeq[type] = (evtTypeSeq[type] ?? 0) + 1;
    const typeSeqN = evtTypeSeq[type];
    items.push(
      eventItem(orgId, {
        id: `evt_${randomUUID()}`,
        type,
        sequence,
        typeSequence: typeSeqN,
        createdAt: new Date(BASE + sequence * MINUTE + 30_000).toISOString(),
        actor: { type: 'system' },
        data,
        resourceId: object.id,
      }),
    );
  }

  const lastCreate = createTimes.at(-1)!;
  const hour = windowsAt(new Date(lastCreate)).hourStart;
  createTimes = createTimes.filter((t) => windowsAt(new Date(t)).hourStart === hour);
  const org: Item = {
    ...orgKey(orgId),
    org_id: orgId,
    created_at: new Date(BASE - 86_400_000).toISOString(),
    ver: n,
    last_at: lastAt,
    op_seq: n,
    dep_seq: records.length,
    ...Object.fromEntries(Object.entries(typeSeq).map(([t, v]) => [typeSeqAttr(t as OperationType), v])),
    create_hour: hour,
    create_count: createTimes.length,
    evt_seq: n,
    ...Object.fromEntries(Object.entries(evtTypeSeq).map(([t, v]) => [eventTypeSeqAttr(t), v])),
  };

  const busiest = records.reduce((a, b) => (b.d.op_count > a.d.op_count ? b : a));
  return {
    orgId,
    operations: n,
    deployments: records.length,
    items,
    org,
    busiest: { id: busiest.d.id, ops: busiest.d.op_count },
    opsByType: typeSeq,
    opsByStatus: Object.fromEntries(Object.entries(nOp).filter(([, v]) => v)),
    deploymentsByStatus: Object.fromEntries(Object.entries(nDep).filter(([, v]) => v)),
    countItems: countItems.length,
    events: n,
    eventsByType: evtTypeSeq,
    revised,
  };
}

/** Revisions 1..n of `d` (1 applied by its create), spread over its life and alternating its size; `d` moves to revision n. */
function revisionsOf(d: DeploymentRecord, createId: string, n: number): Item[] {
  const sizes = ['small', 'medium', 'large'] as const;
  const created = Date.parse(d.created_at);
  const step = (Date.parse(d.updated_at) - created) / Math.max(1, n - 1);
  const items: Item[] = [];
  for (let revision = 1; revision <= n; revision++) {
    const at = new Date(created + Math.floor((revision - 1) * step)).toISOString();
    items.push(
      revisionItem({
        org_id: d.org_id,
        deployment_id: d.id,
        revision,
        config: { ...d.config, size: sizes[(revision - 1) % sizes.length]! },
        created_at: at,
        operation_id: revision === 1 ? createId : newOperationId(),
        rollback_of: null,
      }),
    );
  }
  d.revision = n;
  d.config = { ...d.config, size: sizes[(n - 1) % sizes.length]! };
  return items;
}

/** BatchWriteItem, 25 items a request, `concurrency` requests in flight, unprocessed items retried. */
export async function writeAll(items: Item[], concurrency = 8): Promise<void> {
  const batches: Item[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++]!;
      let requests = batch.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        if (attempt > 20) throw new Error('BatchWriteItem kept returning unprocessed items');
        const out = await ddb.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
        requests = (out.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Writes the organization: its records first, then the org item with its counters. */
export async function seedOrg(org: SeededOrg): Promise<void> {
  await writeAll(org.items);
  await writeAll([org.org], 1);
}
