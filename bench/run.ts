/**
 * `npm run bench`: proves that one organization can hold 100,000 operations and that a
 * list page costs the same at any depth. A list must read only the items it returns,
 * and `total` must come from a counter, not from counting at read time. So, at 100 and
 * at 100,000 operations, page=N is held to within 2× of page=1 in read units and in
 * median latency, through the same repository functions the handlers call.
 * See docs/benchmark.md.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { clientFor, ensureTable, type RunningDynamo, startDynamoLocal } from '../infra/local/dynamodb-local.js';
import { type DeliveryResult, measureDelivery } from './delivery.js';
import { measureSize, type SizeResult } from './measure.js';
import { installMeter } from './meter.js';
import { printReport } from './report.js';
import { buildOrg, type SeededOrg, seedOrg } from './seed.js';
import { tableItemCount, verifyEventShape, verifyOrg, verifyTable } from './verify.js';

/** BENCH_SIZES / BENCH_RUNS / BENCH_WARMUPS override the defaults (for trying the benchmark out quickly). */
const SIZES = (process.env.BENCH_SIZES ?? '100,100000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const WARMUPS = Number(process.env.BENCH_WARMUPS ?? 5);
/** BENCH_DELIVERY_CHANGES: changes timed for webhook delivery (2 events each), after 5 warm-up ones. */
const DELIVERY_CHANGES = Number(process.env.BENCH_DELIVERY_CHANGES ?? 50);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmt = (n: number) => n.toLocaleString('en-US');

async function main(): Promise<number> {
  const started = performance.now();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  // Before the first call: config() and the SDK client read these lazily.
  Object.assign(process.env, {
    TABLE_NAME: 'bench-deployments',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Webhooks to a receiver on loopback, as under npm start (decision 38).
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  });
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;

  console.log(`DynamoDB Local (in memory) starting on port ${port}…`);
  let dynamo: RunningDynamo | undefined;
  const stop = async () => {
    const d = dynamo;
    dynamo = undefined;
    await d?.stop();
  };
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping DynamoDB Local`);
    void stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    dynamo = await startDynamoLocal(port, null);
    await ensureTable(endpoint, process.env.TABLE_NAME!);
    installMeter();

    // Webhook delivery first, on the empty table: the pipeline then reads only these changes.
    console.log(`webhook delivery: ${DELIVERY_CHANGES} changes (2 events each) after 5 warm-up ones, through the local event pipeline…`);
    const delivery: DeliveryResult = await measureDelivery(endpoint, {
      changes: DELIVERY_CHANGES,
      warmups: 5,
      gapMs: [50, 250],
      timeoutMs: 60_000,
    });
    console.log(`  ${delivery.events} events delivered in ${secs(delivery.wallMs)}`);
    const before = await tableItemCount(endpoint);
    // Nothing after this reads the table's stream, and DynamoDB Local writes a stream record
    // per item: without it the seed goes about three times as fast (lists read no stream).
    await clientFor(endpoint).send(
      new UpdateTableCommand({ TableName: process.env.TABLE_NAME!, StreamSpecification: { StreamEnabled: false } }),
    );

    // Seed every organization first: the large seed also warms DynamoDB Local's JVM up
    // before anything is timed.
    const orgs: SeededOrg[] = [];
    const seeding: string[] = [];
    let written = 0;
    for (const [i, n] of SIZES.entries()) {
      const t0 = performance.now();
      const org = buildOrg(`org_bench_${n}`, n, 20_250_106 + i);
      const t1 = performance.now();
      await seedOrg(org);
      const t2 = performance.now();
      written += org.items.length + 1;
      const line =
        `${fmt(n)} operations: ${fmt(org.items.length + 1)} items (${fmt(org.deployments)} deployments, ` +
        `${fmt(org.items.length - 2 * n - org.deployments - org.countItems)} name reservations, ${fmt(org.countItems)} status-count buckets, ${fmt(org.events)} events, the org item) built in ${secs(t1 - t0)}, ` +
        `written in ${secs(t2 - t1)} (${fmt(Math.round((org.items.length + 1) / ((t2 - t1) / 1000)))} items/s)`;
      seeding.push(line);
      console.log(`seeded ${line}`);
      orgs.push(org);
    }
    const tv = performance.now();
    for (const org of orgs) console.log(`  verified ${org.orgId}: ${await verifyOrg(org)}`);
    console.log(`  verified: ${await verifyTable(endpoint, before + written)} (${secs(performance.now() - tv)})`);
    const seededEvent = orgs[0]!.items.find((i) => i.type === delivery.realEvent.type && String(i.sk).startsWith('EVT#'));
    console.log(
      `  verified: ${verifyEventShape(delivery.realEvent, seededEvent ?? orgs[0]!.items.find((i) => String(i.sk).startsWith('EVT#'))!)}`,
    );

    const results: SizeResult[] = [];
    for (const org of orgs) {
      console.log(`measuring ${fmt(org.operations)} operations (${RUNS} runs after ${WARMUPS} warm-ups per page)…`);
      results.push(await measureSize(org, RUNS, WARMUPS));
    }
    const ok = printReport(results, { runs: RUNS, warmups: WARMUPS, seeding, delivery, totalMs: performance.now() - started });
    return ok ? 0 : 1;
  } finally {
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(2);
  },
);
