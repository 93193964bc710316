/**
 * Requests through the in-process local API server (local/api-server.ts, the
 * handler modules Lambda runs), on a Step Functions endpoint whose workflows run the
 * real steps. Per route: the DynamoDB calls each request caused (total and sequential,
 * bench/call-counter.ts), its StartExecution calls, p50/p99 latency and requests/s;
 * for GET /deployments/{id}, the handler stack's throughput against a floor of the
 * same DynamoDB calls made directly (the benchmark's goals 1 and 5,
 * docs/benchmark.md). The route table below is the whole list: one line per row.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { API_PREFIX } from '../contract/routes.js';
import { ddb } from '../functions/adapters/dynamo/client.js';
import { createApiKey } from '../functions/app/api-keys.js';
import { createApiServer } from '../local/api-server.js';
import { attributed, attributeRequests, installCallCounter, type RecordedCall, type RequestCalls } from './call-counter.js';

/** What the rows' paths are built from: one organization with ready deployments and finished operations. */
export interface Fixture {
  baseUrl: string;
  orgId: string;
  key: string;
  /** Ten keys of the organization (the contention run spreads its requests over them). */
  keys: string[];
  /** A ready airflow deployment, its create operation, and ready ones for DELETE rows to destroy. */
  deploymentId: string;
  operationId: string;
  spare: string[];
}

/** The benchmark's goal for one route: at most this many calls (and sequential round trips, StartExecutions). */
export interface Goal {
  calls: number;
  sequential?: number;
  starts?: number;
}

export interface Row {
  label: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below the API prefix; `i` numbers the request (rows that consume a resource take the i-th). */
  path: (f: Fixture, i: number) => string;
  body?: unknown;
  /** The status every request must get. */
  status: number;
  goal?: Goal;
  /** GET rows run under load (autocannon); rows that change things run `once` requests one by one. */
  load: boolean;
}

const list = (label: string, path: string): Row => ({
  label,
  method: 'GET',
  path: () => path,
  status: 200,
  goal: { calls: 4 },
  load: true,
});

export const ROWS: readonly Row[] = [
  { label: 'GET /key', method: 'GET', path: () => '/key', status: 200, goal: { calls: 2 }, load: true },
  {
    label: 'GET /deployments/{id}',
    method: 'GET',
    path: (f) => `/deployments/${f.deploymentId}`,
    status: 200,
    goal: { calls: 3, sequential: 2 },
    load: true,
  },
  {
    label: 'GET /operations/{id}',
    method: 'GET',
    path: (f) => `/operations/${f.operationId}`,
    status: 200,
    goal: { calls: 3, sequential: 2 },
    load: true,
  },
  // A deployment's health and metrics (decisions 48, 49) are held to the other reads' goals.
  {
    label: 'GET /deployments/{id}/health',
    method: 'GET',
    path: (f) => `/deployments/${f.deploymentId}/health`,
    status: 200,
    goal: { calls: 3, sequential: 2 },
    load: true,
  },
  {
    label: 'GET /deployments/{id}/metrics',
    method: 'GET',
    path: (f) => `/deployments/${f.deploymentId}/metrics`,
    status: 200,
    goal: { calls: 3, sequential: 2 },
    load: true,
  },
  { label: 'GET /environments', method: 'GET', path: () => '/environments', status: 200, goal: { calls: 3 }, load: true },
  list('GET /deployments', '/deployments'),
  list('GET /deployments?status=ready', '/deployments?status=ready'),
  list('GET /operations', '/operations'),
  list('GET /operations?type=dag_sync.trigger', '/operations?type=dag_sync.trigger'),
  list('GET /operations?status=succeeded', '/operations?status=succeeded'),
  { ...list('GET /operations?resource_id={id}', ''), path: (f) => `/operations?resource_id=${f.deploymentId}` },
  list('GET /events', '/events'),
  { ...list('GET /deployments/{id}/revisions', ''), path: (f) => `/deployments/${f.deploymentId}/revisions` },
  // Decision 45: the operation (total = its log_count), then one Query of the page's lines.
  { ...list('GET /operations/{id}/logs', ''), path: (f) => `/operations/${f.operationId}/logs` },
  list('GET /events?type=operation.updated', '/events?type=operation.updated'),
  {
    label: 'POST /deployments',
    method: 'POST',
    path: () => '/deployments',
    body: { app_type: 'superset' },
    status: 202,
    goal: { calls: 4, starts: 1 },
    load: false,
  },
  // Decision 42: admission, usage, one consistent read of the organization and deployment, one transaction.
  {
    label: 'PATCH /deployments/{id}',
    method: 'PATCH',
    path: (f, i) => `/deployments/${f.spare[i]}`,
    body: { config: { size: 'large' } },
    status: 202,
    goal: { calls: 4, starts: 1 },
    load: false,
  },
  {
    label: 'PATCH /deployments/{id}?dry_run=true',
    method: 'PATCH',
    path: (f) => `/deployments/${f.deploymentId}?dry_run=true`,
    body: { config: { size: 'medium' } },
    status: 200,
    goal: { calls: 3 },
    load: false,
  },
  {
    label: 'DELETE /deployments/{id}',
    method: 'DELETE',
    path: (f, i) => `/deployments/${f.spare[i]}`,
    status: 202,
    goal: { calls: 5, starts: 1 },
    load: false,
  },
  {
    label: 'POST /deployments/{id}/dag-syncs',
    method: 'POST',
    path: (f) => `/deployments/${f.deploymentId}/dag-syncs`,
    status: 202,
    load: false,
  },
];

export interface RowResult {
  row: Row;
  requests: number;
  /** Calls per request: the smallest and largest seen (they differ when a request took another path). */
  calls: [number, number];
  sequential: [number, number];
  starts: [number, number];
  /** The commands of the first request, in the order they started. */
  commands: string[];
  p50Ms: number;
  p99Ms: number;
  reqPerSec: number;
  /** Requests that did not get the row's status. */
  wrongStatus: number;
  /** The row's goal met in calls, sequential round trips and StartExecutions (undefined: no goal). */
  pass?: boolean;
}

export interface OverheadResult {
  connections: number;
  durationS: number;
  stackReqPerSec: number;
  stackP50Ms: number;
  floorReqPerSec: number;
  floorP50Ms: number;
  /** This process's CPU time per request (the server and autocannon's client; the floor: the SDK alone). */
  stackCpuMsPerRequest: number;
  floorCpuMsPerRequest: number;
  /** The calls the floor makes per request-equivalent, round by round. */
  floorRounds: string[][];
  ratio: number;
}

export interface RequestsOptions {
  /** Seconds each load row runs. */
  durationS: number;
  /**
   * When set, each load run sends this many requests instead of running for a time: a run
   * cut off by the clock counts only the requests that finished inside it, and on a machine
   * busy enough that may be none (the tests' way to be independent of the machine's speed).
   */
  loadRequests?: number;
  connections: number;
  /** Requests each `once` row sends (and how many spare deployments setup makes). */
  once: number;
  /** Seconds the handler-stack overhead measurement runs (each side). */
  overheadS: number;
}

const range = (xs: number[]): [number, number] => [Math.min(...xs), Math.max(...xs)];
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? Number.NaN;
};

/** Names the row a request belongs to: one still in flight when its row ended is not counted for the next. */
const ROW_HEADER = 'x-bench-row';
const OVERHEAD_ROW = 'handler-stack overhead';

export interface RequestBench {
  fixture: Fixture;
  server: http.Server;
  /** Where attributed requests go; the rows point it at their own list. */
  sink: { records: { calls: RequestCalls; status: number; row: string | undefined }[] | undefined };
  close(): Promise<void>;
}

/** Starts the local API server with attribution on, and builds the fixture through it. */
export async function startRequestBench(options: Pick<RequestsOptions, 'once'>): Promise<RequestBench> {
  installCallCounter();
  const server = createApiServer();
  const sink: RequestBench['sink'] = { records: undefined };
  attributeRequests(server, (calls, status, req) =>
    sink.records?.push({ calls, status, row: req.headers[ROW_HEADER] as string | undefined }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${API_PREFIX}`;
  const orgId = `org_bench_requests_${Date.now().toString(36)}`;
  const keys: string[] = [];
  for (let i = 0; i < 10; i++) {
    keys.push((await createApiKey({ orgId, name: `bench-${i}`, now: new Date() })).key);
  }
  const key = keys[0]!;
  // One after another: setup is not the contention run.
  const created: { data: unknown }[] = [];
  for (let i = 0; i <= options.once; i++) created.push(await api(baseUrl, key, 'POST', '/deployments', { app_type: 'airflow' }));
  const ids = created.map((c) => (c.data as { deployment_id: string; operation_id: string }).deployment_id);
  const deploymentId = ids[0]!;
  const operationId = (created[0]!.data as { operation_id: string }).operation_id;
  await Promise.all(ids.map((id) => waitUntilReady(baseUrl, key, id)));
  // A few finished dag syncs, so the operation lists have more than one type to filter.
  for (let i = 0; i < 3; i++) await api(baseUrl, key, 'POST', `/deployments/${deploymentId}/dag-syncs`, {});
  return {
    fixture: { baseUrl, orgId, key, keys, deploymentId, operationId, spare: ids.slice(1) },
    server,
    sink,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function api(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; data: unknown }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'X-API-Key': key, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { data?: unknown; error?: unknown };
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.error)}`);
  return { status: res.status, data: json.data };
}

async function waitUntilReady(baseUrl: string, key: string, id: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data } = await api(baseUrl, key, 'GET', `/deployments/${id}`);
    const status = (data as { status: string }).status;
    if (status === 'ready') return;
    if (status === 'failed' || Date.now() > deadline) throw new Error(`deployment ${id} is ${status}, not ready`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function judge(row: Row, calls: [number, number], sequential: [number, number], starts: [number, number]): boolean | undefined {
  const g = row.goal;
  if (!g) return undefined;
  return (
    calls[1] <= g.calls &&
    (g.sequential === undefined || sequential[1] <= g.sequential) &&
    (g.starts === undefined || starts[1] <= g.starts)
  );
}

/** How long a load run lasts: `loadRequests` requests when set, else the seconds given. */
const runLength = (o: RequestsOptions, durationS: number) => (o.loadRequests ? { amount: o.loadRequests } : { duration: durationS });

/** Measures one row: under load with autocannon, or `once` requests one after another. */
export async function measureRow(bench: RequestBench, row: Row, o: RequestsOptions): Promise<RowResult> {
  const f = bench.fixture;
  // One request first, not counted: Lambda would be warm, and the local server loads a handler module at its first request.
  if (row.load)
    await fetch(`${f.baseUrl}${row.path(f, 0)}`, { method: row.method, headers: { 'X-API-Key': f.key } }).then((r) => r.arrayBuffer());
  const all: NonNullable<RequestBench['sink']['records']> = [];
  bench.sink.records = all;
  const headers = { 'X-API-Key': f.key, [ROW_HEADER]: row.label };
  let p50Ms: number;
  let p99Ms: number;
  let reqPerSec: number;
  try {
    if (row.load) {
      const r = await autocannon({
        url: `${f.baseUrl}${row.path(f, 0)}`,
        method: row.method,
        headers,
        connections: o.connections,
        ...runLength(o, o.durationS),
      });
      p50Ms = r.latency.p50;
      p99Ms = r.latency.p99;
      reqPerSec = r.requests.average;
    } else {
      const ms: number[] = [];
      const t0 = performance.now();
      for (let i = 0; i < o.once; i++) {
        const t = performance.now();
        const res = await fetch(`${f.baseUrl}${row.path(f, i)}`, {
          method: row.method,
          headers: { ...headers, ...(row.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: row.body === undefined ? undefined : JSON.stringify(row.body),
        });
        await res.arrayBuffer();
        ms.push(performance.now() - t);
      }
      p50Ms = quantile(ms, 0.5);
      p99Ms = quantile(ms, 0.99);
      reqPerSec = o.once / ((performance.now() - t0) / 1000);
    }
  } finally {
    bench.sink.records = undefined;
  }
  const records = all.filter((r) => r.row === row.label);
  if (records.length === 0) throw new Error(`${row.label}: no request was served`);
  const calls = range(records.map((r) => r.calls.calls));
  const sequential = range(records.map((r) => r.calls.sequential));
  const starts = range(records.map((r) => r.calls.startExecutions));
  return {
    row,
    requests: records.length,
    calls,
    sequential,
    starts,
    commands: records[0]!.calls.commands,
    p50Ms,
    p99Ms,
    reqPerSec,
    wrongStatus: records.filter((r) => r.status !== row.status).length,
    pass: judge(row, calls, sequential, starts),
  };
}

/** Alternating rounds of the overhead measurement: DynamoDB Local's speed drifts as it warms, and a ratio of runs taken side by side does not. */
const OVERHEAD_ROUNDS = 3;

/**
 * Goal 5: GET /deployments/{id} through the server under autocannon, against the same
 * DynamoDB calls sent directly on the same client by as many workers as connections,
 * round trip after round trip as the handler made them (calls of one round in parallel).
 * Writes are replayed without their condition: a usage entry's "must not exist" would
 * fail the second time, and a failed condition is not what the handler pays. The two
 * sides take turns, OVERHEAD_ROUNDS times; the result is the round with the median ratio.
 */
export async function measureOverhead(bench: RequestBench, o: RequestsOptions): Promise<OverheadResult> {
  const f = bench.fixture;
  const url = `${f.baseUrl}/deployments/${f.deploymentId}`;
  // The client runs in a worker thread: its work is not the handler stack's, and the floor has none.
  const load = (duration: number) =>
    autocannon({
      url,
      headers: { 'X-API-Key': f.key, [ROW_HEADER]: OVERHEAD_ROW },
      connections: o.connections,
      ...runLength(o, duration),
      workers: 1,
    });
  const records: NonNullable<RequestBench['sink']['records']> = [];
  bench.sink.records = records;
  try {
    await load(1);
  } finally {
    bench.sink.records = undefined;
  }
  const sample = records.find((r) => r.row === OVERHEAD_ROW && r.status === 200);
  if (!sample) throw new Error('GET /deployments/{id} answered no 200 under load');
  const rounds = roundsOf(sample.calls.recorded);
  const results: OverheadResult[] = [];
  for (let i = 0; i < OVERHEAD_ROUNDS; i++) {
    const cpu = process.cpuUsage();
    const stack = await load(o.overheadS);
    const stackCpu = cpuMs(process.cpuUsage(cpu)) / stack.requests.total;
    const floor = await replay(rounds, o.connections, o.overheadS);
    results.push({
      connections: o.connections,
      durationS: o.overheadS,
      stackReqPerSec: stack.requests.average,
      stackP50Ms: stack.latency.p50,
      floorReqPerSec: floor.reqPerSec,
      floorP50Ms: floor.p50Ms,
      stackCpuMsPerRequest: stackCpu,
      floorCpuMsPerRequest: floor.cpuMsPerRequest,
      floorRounds: rounds.map((r) => r.map((c) => c.command.name.replace(/Command$/, ''))),
      ratio: stack.requests.average / floor.reqPerSec,
    });
  }
  return results.sort((a, b) => a.ratio - b.ratio)[Math.floor(OVERHEAD_ROUNDS / 2)]!;
}

function roundsOf(recorded: RecordedCall[]): RecordedCall[][] {
  const rounds: RecordedCall[][] = [];
  for (const c of recorded) {
    rounds[c.round] ??= [];
    rounds[c.round]!.push(c);
  }
  return rounds.filter(Boolean);
}

const WRITES = new Set(['PutCommand', 'UpdateCommand', 'DeleteCommand']);

/** A write's input without its condition, and without the names and values only the condition used. */
export function unconditional(input: Record<string, unknown>): Record<string, unknown> {
  const { ConditionExpression: _condition, ReturnValuesOnConditionCheckFailure: _r, ...rest } = input;
  const used = [rest.UpdateExpression, rest.ProjectionExpression].filter((e): e is string => typeof e === 'string').join(' ');
  const keep = (map: unknown) => {
    if (!map || typeof map !== 'object') return undefined;
    const kept = Object.fromEntries(
      Object.entries(map).filter(([k]) => new RegExp(`${k.replace(/[#:]/g, '\\$&')}(?![A-Za-z0-9_])`).test(used)),
    );
    return Object.keys(kept).length ? kept : undefined;
  };
  const names = keep(rest.ExpressionAttributeNames);
  const values = keep(rest.ExpressionAttributeValues);
  const { ExpressionAttributeNames: _n, ExpressionAttributeValues: _v, ...bare } = rest;
  return { ...bare, ...(names ? { ExpressionAttributeNames: names } : {}), ...(values ? { ExpressionAttributeValues: values } : {}) };
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

async function replay(
  rounds: RecordedCall[][],
  workers: number,
  durationS: number,
): Promise<{ reqPerSec: number; p50Ms: number; cpuMsPerRequest: number }> {
  const send = (c: RecordedCall) => {
    const input = WRITES.has(c.command.name) ? unconditional(c.input) : structuredClone(c.input);
    return ddb.send(new c.command(input as never) as never);
  };
  const once = async () => {
    for (const round of rounds) await Promise.all(round.map(send));
  };
  await attributed(() => once()).value; // warm-up, and proof the replay is valid
  const ms: number[] = [];
  const end = performance.now() + 1000 * durationS;
  let done = 0;
  const t0 = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await once();
        ms.push(performance.now() - t);
        done++;
      }
    }),
  );
  return {
    reqPerSec: done / ((performance.now() - t0) / 1000),
    p50Ms: quantile(ms, 0.5),
    cpuMsPerRequest: cpuMs(process.cpuUsage(cpu)) / done,
  };
}

export interface RequestsResult {
  rows: RowResult[];
  overhead: OverheadResult;
  options: RequestsOptions;
}

/** Every row of ROWS, then the handler stack against its floor. */
export async function measureRequests(bench: RequestBench, o: RequestsOptions): Promise<RequestsResult> {
  const rows: RowResult[] = [];
  for (const row of ROWS) rows.push(await measureRow(bench, row, o));
  return { rows, overhead: await measureOverhead(bench, o), options: o };
}
