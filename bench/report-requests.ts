/**
 * The tables and verdicts of the request rows, the handler-stack overhead, the
 * contention run and the cold start (the benchmark's goals 1, 3, 4 and 5,
 * docs/benchmark.md); returns whether every gated check passed. Goal 1's rows are gated: the lead's data-model work is what
 * makes them pass.
 */
import { COLD_START_LIMITS, type ColdStartResult, type ImportTime } from './cold-start.js';
import type { ContentionResult } from './contention.js';
import type { OrgLineResult } from './org-line.js';
import type { RequestsResult, RowResult } from './requests.js';

export const OVERHEAD_LIMIT = 0.7;

const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
const span = ([a, b]: [number, number]) => (a === b ? String(a) : `${a}-${b}`);
const x = (r: number) => `${r.toFixed(2)}×`;
/** Decision 301: the sustained rate of event-numbered writes one organization must reach. */
const WRITES_PER_SECOND = 100;

/** A text table; cells that look like numbers are right-aligned. */
export function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const numeric = /^[-\d.,×%≤ ]+( KB| ms)?$/;
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric.test(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

function goalText(r: RowResult): string {
  const g = r.row.goal;
  if (!g) return '(none)';
  return [`≤ ${g.calls}`, g.sequential === undefined ? '' : `in ≤ ${g.sequential} seq`, g.starts === undefined ? '' : `+ ${g.starts} start`]
    .filter(Boolean)
    .join(' ');
}

const importCell = (t: ImportTime) => `${f1(t.cpuMs)} (${f1(t.wallMs)})`;

export function printRequestsReport(r: {
  requests: RequestsResult | undefined;
  contention: ContentionResult | undefined;
  /** Concurrent creates of one organization (decision 300). */
  burst?: ContentionResult | undefined;
  orgLine?: OrgLineResult | undefined;
  coldStart: ColdStartResult | undefined;
}): boolean {
  let ok = true;
  const verdict = (pass: boolean, text: string) => {
    if (!pass) ok = false;
    console.log(`${pass ? 'PASS' : 'FAIL'}  ${text}`);
  };

  if (r.requests) {
    const { rows, overhead, options: o } = r.requests;
    console.log('');
    console.log(
      `Requests through the local API server (in process, DynamoDB Local, workflows on the local engine). GET rows: autocannon, ` +
        `${o.connections} connections for ${o.durationS} s; other rows: ${o.once} requests one after another. ` +
        'calls: DynamoDB calls a request made (SDK middleware on the shared client, attributed by AsyncLocalStorage; the workflows’ own calls are not the request’s); ' +
        'seq: calls that started while none of the same request was in flight, i.e. round trips waited for one after another; ' +
        'start: StartExecution calls. A range means requests differed.',
    );
    console.log('');
    console.log(
      table([
        ['route', 'requests', 'calls', 'seq', 'start', 'p50 ms', 'p99 ms', 'req/s', 'goal', 'verdict', 'commands (first request)'],
        ...rows.map((x) => [
          x.row.label,
          String(x.requests),
          span(x.calls),
          span(x.sequential),
          span(x.starts),
          f2(x.p50Ms),
          f2(x.p99Ms),
          f1(x.reqPerSec),
          goalText(x),
          x.pass === undefined ? 'info' : x.pass ? 'PASS' : 'FAIL',
          x.commands.join(' '),
        ]),
      ]),
    );
    console.log('');
    console.log('Goal 1 (round trips per request):');
    for (const x of rows) {
      if (x.wrongStatus) verdict(false, `${x.row.label}: ${x.wrongStatus} of ${x.requests} requests did not get ${x.row.status}`);
      if (x.pass !== undefined)
        verdict(
          x.pass,
          `${x.row.label}: ${span(x.calls)} calls, ${span(x.sequential)} sequential, ${span(x.starts)} StartExecution (goal ${goalText(x)})`,
        );
    }
    console.log('');
    console.log(
      `Goal 5 (handler-stack overhead): GET /deployments/{id}, ${overhead.connections} connections, ${overhead.durationS} s each; ` +
        `the floor sends the same DynamoDB calls directly on the same client, round by round: ${overhead.floorRounds.map((r) => r.join('+')).join(' → ')}.`,
    );
    console.log(
      table([
        ['', 'req/s', 'p50 ms', 'CPU ms/request'],
        ['through the server', f1(overhead.stackReqPerSec), f2(overhead.stackP50Ms), f2(overhead.stackCpuMsPerRequest)],
        ['floor (SDK only)', f1(overhead.floorReqPerSec), f2(overhead.floorP50Ms), f2(overhead.floorCpuMsPerRequest)],
      ]),
    );
    verdict(overhead.ratio >= OVERHEAD_LIMIT, `handler stack: ${x(overhead.ratio)} of the floor's throughput (goal ≥ ${OVERHEAD_LIMIT}×)`);
  }

  if (r.contention) {
    const c = r.contention;
    console.log('');
    console.log(
      `Contention (goal 4): ${c.requests} parallel POST /deployments/{id}/dag-syncs on one ready deployment, spread over 10 keys of one organization:`,
    );
    const statuses = Object.entries(c.byStatus)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    const codes = Object.entries(c.byCode)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
    console.log(
      `  by status ${statuses}${codes ? ` (${codes})` : ''}; wall ${f1(c.wallMs)} ms; sustained write rate ${f1(c.writesPerSecond)} accepted writes/s`,
    );
    verdict(c.serverErrors === 0, `contention: ${c.serverErrors} answers ≥ 500 (goal: none)`);
  }

  if (r.orgLine) {
    const l = r.orgLine;
    const refused = Object.entries(l.refused)
      .map(([m, n]) => `${n} × ${m}`)
      .join(', ');
    console.log('');
    console.log(
      `The organization's line (decision 328): ${l.writes} DAG syncs of one deployment started at once through the use case, no HTTP:`,
    );
    console.log(
      `  ${l.committed} committed${refused ? `, refused: ${refused}` : ''}; wall ${f1(l.wallMs)} ms; ${f1(l.writesPerSecond)} event-numbered writes/s`,
    );
    // Group commits let one organization sustain at least 100 event-numbered writes a second (decisions 300, 328).
    verdict(
      l.committed === l.writes && l.writesPerSecond >= WRITES_PER_SECOND,
      `organization line: ${l.committed} of ${l.writes} committed, ${f1(l.writesPerSecond)} writes/s (goal: all, ≥ ${WRITES_PER_SECOND})`,
    );
  }

  if (r.burst) {
    const b = r.burst;
    const accepted = b.byStatus[202] ?? 0;
    console.log('');
    console.log(`Burst (decision 300): ${b.requests} concurrent POST /deployments of one organization, over 10 keys:`);
    console.log(
      `  by status ${Object.entries(b.byStatus)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')}; wall ${f1(b.wallMs)} ms; ${f1(b.writesPerSecond)} creates/s`,
    );
    verdict(accepted === b.requests, `create burst: ${accepted} of ${b.requests} accepted (goal: all, no 429)`);
  }

  if (r.coldStart) {
    const cs = r.coldStart;
    console.log('');
    console.log(
      `Cold start (goal 3), per function from cdk synth (${f1(cs.synthMs / 1000)} s): bundle bytes and import time against a floor bundle built with the same esbuild ` +
        `options that only creates the SDK clients the function is declared to use (FUNCTION_ACCESS), holds the commands it sends on them, and creates Powertools' Logger and Metrics. Import: median CPU ms (median wall ms) of ${cs.runs} fresh Node ${process.versions.node} processes each, one at a time, ` +
        `each right beside one of the floor's, with the NODE_OPTIONS the function gets on Lambda; the import ratio is the median of those ${cs.runs} pairs' ratios. Limits ${COLD_START_LIMITS.bytes}× in bytes, ${COLD_START_LIMITS.import}× in import.`,
    );
    console.log(
      table([
        ['function', 'clients', 'bytes', 'floor', 'ratio', 'import ms', 'floor ms', 'ratio', 'verdict', 'also bundles'],
        ...cs.functions.map((f) => [
          f.name,
          f.clients
            .filter((c) => c !== '@aws-sdk/lib-dynamodb')
            .map((c) => c.replace('@aws-sdk/client-', ''))
            .join('+') || '(none)',
          kb(f.bytes),
          kb(f.floorBytes),
          x(f.bytesRatio),
          importCell(f.import),
          importCell(f.floorImport),
          x(f.importRatio),
          f.gated ? (f.pass ? 'PASS' : 'FAIL') : 'info',
          f.bundled
            .filter((c) => !f.clients.includes(c))
            .map((c) => c.replace('@aws-sdk/', ''))
            .join(' '),
        ]),
      ]),
    );
    const s = cs.sourceMaps;
    console.log(
      `Source maps: get-deployment imports in ${importCell(s.with)} ms with --enable-source-maps and ${importCell(s.without)} ms without ` +
        `(floor ${importCell(s.floorWith)} / ${importCell(s.floorWithout)}).`,
    );
    for (const f of cs.functions) {
      if (!f.gated) continue;
      verdict(
        f.pass,
        `${f.name}: ${x(f.bytesRatio)} the floor's bytes (limit ${COLD_START_LIMITS.bytes}×), ${x(f.importRatio)} its import CPU time (limit ${COLD_START_LIMITS.import}×)`,
      );
    }
  }
  return ok;
}
