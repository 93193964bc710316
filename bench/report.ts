/** The results table and the verdicts; returns whether every gated check passed. */
import { DELIVERY_GOAL_MS, type DeliveryResult } from './delivery.js';
import { type PageStats, PER_PAGE, type SizeResult } from './measure.js';

const LIMIT = 2;
const fmt = (n: number) => n.toLocaleString('en-US');
const ms = (n: number) => n.toFixed(2);
const ru = (p: PageStats) => (p.unitsMin === p.unitsMax ? String(p.units) : `${p.units} (${p.unitsMin}-${p.unitsMax})`);
const ratio = (a: number, b: number) => (b === 0 ? (a === 0 ? 1 : Infinity) : a / b);
const x = (r: number) => `${r.toFixed(2)}×`;

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i >= 2 && i <= 9 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)].join('\n');
}

/** Every run of the page read exactly the items it returned (the total's GetItem included). */
const readsOnlyReturned = (p: PageStats) => p.samples.every((s) => s.reading.itemsRead === s.reading.itemsReturned);

export function printReport(
  results: SizeResult[],
  info: { runs: number; warmups: number; seeding: string[]; delivery: DeliveryResult | undefined },
): boolean {
  const sources = new Set(results.flatMap((r) => r.cases.flatMap((c) => [c.first, ...c.deep].map((p) => p.unitSource))));
  const rows: string[][] = [['size', 'list', 'page', 'total', 'items', 'read/returned', 'read units', 'p50 ms', 'p90 ms', 'runs', 'calls']];
  for (const r of results) {
    for (const c of r.cases) {
      for (const p of [c.first, ...c.deep]) {
        const which = p === c.first ? '' : ` (${p.role})`;
        rows.push([
          fmt(r.size),
          `${c.label}${c.gated ? '' : ' *'}`,
          `${fmt(p.page)}${which}`,
          fmt(c.total),
          String(p.returned),
          `${fmt(p.itemsRead)}/${fmt(p.itemsReturned)}`,
          ru(p),
          ms(p.medianMs),
          ms(p.p90Ms),
          String(p.samples.length),
          p.calls,
        ]);
      }
    }
  }
  console.log('');
  console.log(`Results: per_page=${PER_PAGE}; each page run ${info.runs}× after ${info.warmups} warm-ups, pages interleaved run by run `);
  console.log(
    sources.has('estimated')
      ? 'Read units: ESTIMATED from item sizes (DynamoDB Local did not report ConsumedCapacity for every call): ceil(bytes/4 KB), halved for eventually consistent reads.'
      : 'Read units: ConsumedCapacity.CapacityUnits as reported by DynamoDB Local (ReturnConsumedCapacity=TOTAL set on every call by a middleware on the shared client).',
  );
  console.log(
    'read/returned: items the calls read (Query ScannedCount, GetItem 1) / items they returned; the GetItem is the org (or deployment) item holding the total.',
  );
  console.log('size: the organization holds this many operations and as many events.');
  console.log(
    'Latency: wall time of the repository call (listOperations / listDeployments / listEvents), median (p50) and p90 over the runs.',
  );
  console.log('* informational, not gated.');
  console.log('');
  console.log(table(rows));
  console.log('');

  let ok = true;
  const verdict = (pass: boolean, text: string) => {
    if (!pass) ok = false;
    console.log(`${pass ? 'PASS' : 'FAIL'}  ${text}`);
  };
  const note = (text: string) => console.log(`info  ${text}`);

  console.log(`Verdicts (page N vs page 1, limit ${LIMIT}× in read units and in median latency; reads must equal returned items):`);
  for (const r of results) {
    for (const c of r.cases) {
      for (const d of c.deep) {
        const u = ratio(d.units, c.first.units);
        const l = ratio(d.medianMs, c.first.medianMs);
        const head = `${fmt(r.size)} ops · ${c.label}: page ${fmt(d.page)} (${d.role}) vs page 1:`;
        if (!c.gated) {
          note(
            `${head} ${x(u)} read units, ${x(l)} median latency; page 1 reads ${fmt(c.first.itemsRead)} items for ${c.first.returned}, page ${fmt(d.page)} reads ${fmt(d.itemsRead)} for ${d.returned} (${c.note})`,
          );
          continue;
        }
        const exact = readsOnlyReturned(c.first) && readsOnlyReturned(d);
        verdict(
          u <= LIMIT && l <= LIMIT && exact,
          `${head} ${x(u)} read units, ${x(l)} median latency; ${exact ? 'reads only the items it returns' : 'READS ITEMS IT DOES NOT RETURN'}`,
        );
      }
    }
  }
  const [small, large] = [results[0]!, results.at(-1)!];
  if (small !== large) {
    console.log(`Across sizes (page 1 at ${fmt(large.size)} vs at ${fmt(small.size)} operations, limit ${LIMIT}× in read units):`);
    for (const c of large.cases) {
      const s = small.cases.find((k) => k.key === c.key);
      if (!s) continue;
      const u = ratio(c.first.units, s.first.units);
      const head = `page 1 at ${fmt(large.size)} vs at ${fmt(small.size)} ops · ${c.label}: ${x(u)} read units, ${x(ratio(c.first.medianMs, s.first.medianMs))} median latency`;
      if (!c.gated || c.key === 'deps' || c.grows) {
        note(
          `${head} (${c.key === 'deps' ? `page 1 holds ${c.first.returned} vs ${s.first.returned} deployments: not comparable` : (c.grows ?? c.note)})`,
        );
      } else if (c.first.returned !== s.first.returned) {
        verdict(false, `${head}: page 1 holds ${c.first.returned} vs ${s.first.returned} items, cannot compare`);
      } else {
        verdict(u <= LIMIT, head);
      }
    }
  }
  const d = info.delivery;
  if (d) {
    console.log('');
    console.log(
      `Webhook delivery (local pipeline: stream → dispatcher → queue → deliverer → receiver on 127.0.0.1), commit → receipt, ` +
        `${d.events} events of ${d.changes} changes (insertDeployment, one every ${d.gapMs[0]}-${d.gapMs[1]} ms, after ${d.warmups} warm-up changes):`,
    );
    console.log(
      table([
        ['events', 'deliveries', 'p50 ms', 'p99 ms', 'min ms', 'max ms', 'write p50 ms', 'goal'],
        [
          String(d.events),
          String(d.deliveries),
          ms(d.p50Ms),
          ms(d.p99Ms),
          ms(d.minMs),
          ms(d.maxMs),
          ms(d.writeP50Ms),
          `≤ ${DELIVERY_GOAL_MS / 1000} s`,
        ],
      ]),
    );
    verdict(d.p99Ms <= DELIVERY_GOAL_MS, `webhook delivery: p99 ${ms(d.p99Ms)} ms, max ${ms(d.maxMs)} ms (goal ≤ ${DELIVERY_GOAL_MS} ms)`);
  }
  console.log('');
  for (const s of info.seeding) console.log(`Seeding: ${s}`);
  return ok;
}
