/**
 * Webhook delivery latency on the local pipeline (decision 38): a receiver on 127.0.0.1,
 * a webhook registered for one organization through createWebhook, the local event
 * pipeline (local/event-pipeline.ts: the table's stream → dispatcher → delivery
 * queue → deliverer, as `npm start` runs it), and changes written one at a time through
 * the write path's own insertDeployment (each commits a deployment.created and an
 * operation.created event in its transaction). Each event's latency is from the moment
 * its change's transaction returned (the commit acknowledged) to the moment the receiver
 * had the whole first delivery of it. Runs on a fresh table, before the seeding, so the
 * stream holds only these changes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { eventKey } from '../contract/table/entities.js';
import { ddb, tableName } from '../functions/adapters/dynamo/client.js';
import { counter, getOrg } from '../functions/adapters/dynamo/org-reads.js';
import { createWebhook } from '../functions/app/webhooks.js';
import { startEventPipeline } from '../local/event-pipeline.js';
import { seedDeployment } from '../test/helpers/seed-deployment.js';

export const DELIVERY_GOAL_MS = 5_000;

export interface DeliveryResult {
  orgId: string;
  /** Changes measured (after the warm-up ones), and the events they committed. */
  changes: number;
  warmups: number;
  events: number;
  /** Deliveries received in all (at least once: a repeat is counted here, not timed again). */
  deliveries: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  minMs: number;
  /** Median time of the write itself (insertDeployment, one transaction). */
  writeP50Ms: number;
  gapMs: [number, number];
  /** One event item a real write put (sequence 1), to check the seeded ones against. */
  realEvent: Record<string, unknown>;
  wallMs: number;
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver on loopback: the first time each event sequence arrived (performance.now()). */
async function receiver() {
  const firstAt = new Map<number, number>();
  let deliveries = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      deliveries++;
      try {
        const { sequence } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { sequence: number };
        if (!firstAt.has(sequence)) firstAt.set(sequence, at);
      } catch {
        // not an event: ignored (and answered 204 all the same)
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    firstAt,
    deliveries: () => deliveries,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** One change through the write path: a deployment created, with its create operation (2 events). */
async function createOne(orgId: string, i: number): Promise<void> {
  await seedDeployment(orgId, { name: `bench-hook-${String(i).padStart(4, '0')}`, app_type: i % 2 ? 'superset' : 'airflow' });
}

export async function measureDelivery(
  endpoint: string,
  opts: { changes: number; warmups: number; gapMs: [number, number]; timeoutMs: number },
): Promise<DeliveryResult> {
  const t0 = performance.now();
  const orgId = 'org_bench_webhooks';
  const r = await receiver();
  const pipeline = startEventPipeline({ endpoint, tableName: tableName(), dataDir: null });
  try {
    await createWebhook(orgId, { url: r.url }, new Date());
    /** Sequence → when the transaction that wrote it returned. */
    const committedAt = new Map<number, number>();
    const writes: number[] = [];
    let seq = counter(await getOrg(orgId, true), 'evt_seq');
    const firstMeasured = { seq: 0 };
    for (let i = 0; i < opts.warmups + opts.changes; i++) {
      if (i === opts.warmups) firstMeasured.seq = seq + 1;
      const w0 = performance.now();
      await createOne(orgId, i);
      const at = performance.now();
      writes.push(at - w0);
      // Not timed: which sequences that transaction numbered (writes are one at a time).
      const now = counter(await getOrg(orgId, true), 'evt_seq');
      for (let s = seq + 1; s <= now; s++) committedAt.set(s, at);
      seq = now;
      const [lo, hi] = opts.gapMs;
      await sleep(lo + Math.random() * (hi - lo));
    }
    const deadline = performance.now() + opts.timeoutMs;
    while ([...committedAt.keys()].some((s) => !r.firstAt.has(s))) {
      if (performance.now() > deadline) {
        const missing = [...committedAt.keys()].filter((s) => !r.firstAt.has(s));
        throw new Error(
          `${missing.length} events not delivered within ${opts.timeoutMs} ms (sequences ${missing.slice(0, 10).join(', ')}…)`,
        );
      }
      await sleep(20);
    }
    const latencies = [...committedAt.entries()].filter(([s]) => s >= firstMeasured.seq).map(([s, at]) => r.firstAt.get(s)! - at);
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: eventKey(orgId, 1), ConsistentRead: true }));
    if (!Item) throw new Error('the first real event item was not found');
    return {
      orgId,
      changes: opts.changes,
      warmups: opts.warmups,
      events: latencies.length,
      deliveries: r.deliveries(),
      p50Ms: quantile(latencies, 0.5),
      p99Ms: quantile(latencies, 0.99),
      maxMs: Math.max(...latencies),
      minMs: Math.min(...latencies),
      writeP50Ms: quantile(writes.slice(opts.warmups), 0.5),
      gapMs: opts.gapMs,
      realEvent: Item,
      wallMs: performance.now() - t0,
    };
  } finally {
    await pipeline.stop();
    await r.close();
  }
}
