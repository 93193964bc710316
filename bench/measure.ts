/**
 * Measures list pages through the repositories' own functions (listOperations,
 * listDeployments, listEvents: what the handlers call), page 1 against the last page
 * (and, for the event log, a middle page), each run metered for read units and items read.
 */

import type { EventType, Pagination } from '../contract/schemas.js';
import { logLineKey } from '../contract/table/entities.js';
import { listDeployments } from '../functions/adapters/dynamo/deployment-reads.js';
import { listEvents } from '../functions/adapters/dynamo/event-reads.js';
import { listOperationLog } from '../functions/adapters/dynamo/operation-log-reads.js';
import { listOperations, type OperationFilters } from '../functions/adapters/dynamo/operation-reads.js';
import { listRevisions } from '../functions/adapters/dynamo/revision-reads.js';
import { metered, type Reading } from './meter.js';
import { type SeededOrg, writeAll } from './seed.js';

export const PER_PAGE = 50;

export interface Sample {
  ms: number;
  units: number;
  /** 'reported' when DynamoDB returned ConsumedCapacity for every call, else 'estimated'. */
  unitSource: 'reported' | 'estimated';
  reading: Reading;
  returned: number;
  pagination: Pagination;
}

export interface PageStats {
  page: number;
  /** Which page of the list this is, for the report. */
  role: 'first' | 'middle' | 'last' | 'deepest full';
  samples: Sample[];
  medianMs: number;
  p90Ms: number;
  /** Read units of a run (median; `unitsMin`/`unitsMax` show whether runs differ). */
  units: number;
  unitsMin: number;
  unitsMax: number;
  unitSource: 'reported' | 'estimated';
  itemsRead: number;
  itemsReturned: number;
  returned: number;
  calls: string;
}

export interface CaseResult {
  key: string;
  label: string;
  gated: boolean;
  note?: string;
  grows?: string;
  total: number;
  pages: number;
  runs: number;
  first: PageStats;
  /** The last page and, when the last page is partial, the deepest full page. */
  deep: PageStats[];
}

export interface SizeResult {
  size: number;
  orgId: string;
  cases: CaseResult[];
}

interface Case {
  key: string;
  label: string;
  gated: boolean;
  note?: string;
  /** Also measure the middle page. */
  middle?: boolean;
  runs?: number;
  warmups?: number;
  /** The total the seed says the list has (checked, not measured). */
  total?: number;
  /** Why page 1 may cost more in a larger organization (then page 1 is not compared across sizes). */
  grows?: string;
  read(page: number): Promise<{ items: unknown[]; pagination: Pagination }>;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[i]!;
};
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function sample(c: Case, page: number): Promise<Sample> {
  const { value, reading, ms } = await metered(() => c.read(page));
  const reported = reading.unreported === 0 && reading.calls > 0;
  return {
    ms,
    reading,
    returned: value.items.length,
    pagination: value.pagination,
    units: reported ? reading.reportedUnits : reading.estimatedUnits,
    unitSource: reported ? 'reported' : 'estimated',
  };
}

function stats(page: number, role: PageStats['role'], samples: Sample[]): PageStats {
  const units = samples.map((s) => s.units);
  const r = samples[0]!;
  return {
    page,
    role,
    samples,
    medianMs: median(samples.map((s) => s.ms)),
    p90Ms: quantile(
      samples.map((s) => s.ms),
      0.9,
    ),
    units: median(units),
    unitsMin: Math.min(...units),
    unitsMax: Math.max(...units),
    unitSource: samples.every((s) => s.unitSource === 'reported') ? 'reported' : 'estimated',
    itemsRead: median(samples.map((s) => s.reading.itemsRead)),
    itemsReturned: median(samples.map((s) => s.reading.itemsReturned)),
    returned: r.returned,
    calls:
      r.reading.commands.length > 4
        ? `${r.reading.commands[0]} + ${r.reading.commands.length - 1}× ${r.reading.commands[1]}`
        : r.reading.commands.join(' + '),
  };
}

/**
 * `warmups` unrecorded runs of each page, then `runs` runs of each, the order of the
 * pages rotating run by run so that no page is always first (or always after another).
 */
async function measureCase(c: Case, runs: number, warmups: number): Promise<CaseResult> {
  const probe = await sample(c, 1);
  const { pages, total } = probe.pagination;
  if (c.total !== undefined && c.total !== total) throw new Error(`${c.label}: total ${total}, but the seed holds ${c.total}`);
  const last = Math.max(1, pages);
  const roles: [number, PageStats['role']][] = [[1, 'first']];
  const mid = Math.ceil(last / 2);
  if (c.middle && mid > 1 && mid < last - 1) roles.push([mid, 'middle']);
  if (last > 1) roles.push([last, 'last']);
  // A partial last page is cheap for the wrong reason: also hold the deepest full page.
  if (c.gated && total - (last - 1) * PER_PAGE < PER_PAGE && last - 1 > 1) roles.push([last - 1, 'deepest full']);
  if (roles.length === 1) roles.push([last, 'last']);
  const measured = roles.map(([p]) => p);
  for (let w = 0; w < warmups; w++) for (const p of measured) await sample(c, p);
  const samples = measured.map((): Sample[] => []);
  for (let i = 0; i < runs; i++) {
    for (let j = 0; j < measured.length; j++) {
      const k = (i + j) % measured.length;
      samples[k]!.push(await sample(c, measured[k]!));
    }
  }
  const [first, ...rest] = roles.map(([p, role], k) => stats(p, role, samples[k]!));
  return { key: c.key, label: c.label, gated: c.gated, note: c.note, grows: c.grows, total, pages: last, runs, first: first!, deep: rest };
}

/** Decision 45: one operation with this many log lines, oldest first, page N a key range. */
const LOG_LINES = 10_000;

/** The log of one operation of the organization, written as the workflow's transactions leave it (adapters/dynamo/operation-update.ts). */
async function seedOperationLog(orgId: string) {
  const op = { org_id: orgId, id: 'op_00000000-0000-4000-8000-00000000f0a5', log_count: LOG_LINES };
  const start = Date.parse('2026-11-24T00:00:00.000Z');
  const lines = Array.from({ length: LOG_LINES }, (_, i) => ({
    ...logLineKey(orgId, op.id, i + 1),
    operation_id: op.id,
    sequence: i + 1,
    time: new Date(start + i * 250).toISOString(),
    phase: 'provisioning_db',
    level: 'info',
    message: `simulated platform line ${i + 1}: creating database instance db.t4g.small`,
  }));
  await writeAll(lines);
  return op;
}

/** The event type measured filtered: the most common one, so page 1 is full at every size. */
export const EVENT_TYPE: EventType = 'operation.updated';

/** A status filter reads its list's status counts first: one small item per 50 positions of the list. */
const COUNTS = 'reads the status counts of its list first, one small item per 50 positions';

export async function measureSize(org: SeededOrg, runs: number, warmups: number): Promise<SizeResult> {
  const ops = (f: OperationFilters) => (page: number) => listOperations(org.orgId, f, { page, per_page: PER_PAGE });
  const evts = (type?: EventType) => (page: number) => listEvents(org.orgId, type ? { type } : {}, { page, per_page: PER_PAGE });
  // The same type at every size, so page 1 compares across sizes: DAG syncs, the list that grows for years.
  const type: OperationFilters['type'] = 'dag_sync.trigger';
  const busiest = org.busiest.id;
  const status = 'succeeded';
  // Every filter and combination of GET /operations, and both of GET /deployments: page 1,
  // the middle page and the last (and the deepest full one) within 2× of each other.
  const cases: Case[] = [
    { key: 'ops', label: 'operations', gated: true, middle: true, read: ops({}) },
    { key: 'type', label: `operations type=${type}`, gated: true, middle: true, read: ops({ type }) },
    {
      key: 'resource',
      label: `operations resource_id=<busiest, ${org.busiest.ops.toLocaleString('en-US')} ops>`,
      gated: true,
      middle: true,
      read: ops({ resourceId: busiest }),
    },
    {
      key: 'resource+type',
      label: `operations resource_id=<busiest> type=${type}`,
      gated: true,
      middle: true,
      read: ops({ resourceId: busiest, type }),
    },
    {
      key: 'status',
      grows: COUNTS,
      label: `operations status=${status}`,
      gated: true,
      middle: true,
      total: org.opsByStatus[status] ?? 0,
      read: ops({ status }),
    },
    {
      key: 'status+type',
      grows: COUNTS,
      label: `operations status=${status} type=${type}`,
      gated: true,
      middle: true,
      read: ops({ status, type }),
    },
    {
      key: 'status+resource',
      grows: COUNTS,
      label: `operations status=${status} resource_id=<busiest>`,
      gated: true,
      middle: true,
      read: ops({ status, resourceId: busiest }),
    },
    {
      key: 'status+resource+type',
      grows: COUNTS,
      label: `operations status=${status} resource_id=<busiest> type=${type}`,
      gated: true,
      middle: true,
      read: ops({ status, resourceId: busiest, type }),
    },
    {
      key: 'deps',
      label: 'deployments',
      gated: true,
      middle: true,
      read: (page) => listDeployments(org.orgId, { page, per_page: PER_PAGE }),
    },
    {
      key: 'deps+status',
      grows: COUNTS,
      label: 'deployments status=ready',
      gated: true,
      middle: true,
      total: org.deploymentsByStatus.ready ?? 0,
      read: (page) => listDeployments(org.orgId, { status: 'ready', page, per_page: PER_PAGE }),
    },
    { key: 'events', label: 'events', gated: true, middle: true, read: evts() },
    {
      key: 'logs',
      label: `log lines of one operation (${LOG_LINES.toLocaleString('en-US')})`,
      gated: true,
      middle: true,
      total: LOG_LINES,
      read: (page) => listOperationLog(logged, { page, per_page: PER_PAGE }),
    },
    { key: 'evtype', label: `events type=${EVENT_TYPE}`, gated: true, middle: true, read: evts(EVENT_TYPE) },
    {
      key: 'revisions',
      label: `revisions of one deployment (${org.revised.revision.toLocaleString('en-US')})`,
      gated: true,
      middle: true,
      total: org.revised.revision,
      read: (page) => listRevisions(org.revised, { page, per_page: PER_PAGE }),
    },
  ];
  const results: CaseResult[] = [];
  const logged = await seedOperationLog(org.orgId);
  for (const c of cases) {
    const t0 = performance.now();
    const r = await measureCase(c, c.runs ?? runs, c.warmups ?? warmups);
    console.log(
      `    ${c.label}: pages ${[r.first, ...r.deep].map((p) => p.page).join(', ')} × ${r.runs} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    results.push(r);
  }
  return { size: org.operations, orgId: org.orgId, cases: results };
}
