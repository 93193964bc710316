/**
 * Webhook receivers that fail in the three ways networks do (decision 38): one never
 * answers (the 10 s limit ends each attempt), one resets the connection, one answers 500.
 * Each is retried on WEBHOOK_RETRY_SCHEDULE and then given up, every attempt listed, while
 * a healthy receiver of the same organization gets every event as it happens, not after
 * the failing ones. The local pipeline on a table of this file's own (its stream and
 * queue see only this file's events), DynamoDB Local and the real workflow.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { PARTITIONS } from '../../contract/table/entities.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { ensureTable } from '../../local/dynamodb-local.js';
import { type EventPipeline, startEventPipeline } from '../../local/event-pipeline.js';
import { createDeployment, operationReaches } from '../helpers/api.js';
import { call, createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';

process.env.TABLE_NAME = 'deployments-webhook-faults';
// Two retries a second apart: three attempts in all.
process.env.WEBHOOK_RETRY_SCHEDULE = '1,1';
process.env.RATE_LIMIT_PER_MINUTE = '1000';
// Phases of half a second: the create's six events come over a second or two, after the first ones were claimed.
process.env.PHASE_DELAY_MS = '500';

type Behaviour = 'silent' | 'reset' | 'error' | 'healthy';

interface Request {
  webhookId: string;
  body: string;
  headers: http.IncomingHttpHeaders;
  /** The caller closed the connection (for a silent receiver: gave up waiting). */
  closed: boolean;
}

async function receiver(behaviour: Behaviour) {
  const requests: Request[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Request = {
        webhookId: String(req.headers['webhook-id']),
        body: Buffer.concat(chunks).toString('utf8'),
        headers: req.headers,
        closed: false,
      };
      requests.push(r);
      req.socket.once('close', () => (r.closed = true));
      if (behaviour === 'reset') req.socket.destroy();
      else if (behaviour === 'error') res.writeHead(500).end('boom');
      else if (behaviour === 'healthy') res.writeHead(204).end();
      // silent: never answers
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/${behaviour}`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

interface Delivery {
  event_id: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  succeeded: boolean;
}

async function deliveries(key: string, webhookId: string): Promise<Delivery[]> {
  const res = await call('GET', `/webhooks/${webhookId}/deliveries?per_page=100`, { key });
  expect(res.status).toBe(200);
  return res.body.data.items;
}

/** Deliveries of the webhook still waiting in the local queue (this file's table only). */
async function queued(webhookId: string): Promise<number> {
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :q',
      ExpressionAttributeValues: { ':q': `${PARTITIONS.localQueue}webhook-deliveries` },
    }),
  );
  return Items.filter((i) => String(i.body).includes(webhookId)).length;
}

let pipeline: EventPipeline | undefined;
beforeAll(async () => {
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!);
  pipeline = startEventPipeline({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!, tableName: process.env.TABLE_NAME!, dataDir: null });
});
afterAll(() => pipeline?.stop());

describe('webhook receivers that fail', () => {
  it('retries a silent, a resetting and a 500 receiver on the schedule, and never holds a healthy one behind them', async () => {
    const { key } = await createKey();
    const receivers = {
      silent: await receiver('silent'),
      reset: await receiver('reset'),
      error: await receiver('error'),
      healthy: await receiver('healthy'),
    };
    try {
      const hooks: Record<string, { id: string; secret: string }> = {};
      for (const [name, r] of Object.entries(receivers)) {
        const events = name === 'healthy' ? undefined : ['deployment.created'];
        const made = await call('POST', '/webhooks', { key, body: { url: r.url, ...(events ? { events } : {}) } });
        expect(made.status).toBe(201);
        hooks[name] = made.body.data;
      }

      const created = await createDeployment(key);
      expect(created.status).toBe(202);
      // The silent receiver holds the first attempt of deployment.created open…
      await eventually(async () => receivers.silent.requests.length === 1, 'the silent receiver to be called', 30_000, 50);
      // …while the healthy one gets every event of the create, the ones made after that request too.
      await operationReaches(key, created.body.data.operation_id, ['succeeded']);
      const events = (await call('GET', '/events?per_page=100', { key })).body.data.items as { id: string; sequence: number }[];
      expect(events).toHaveLength(6);
      await eventually(
        async () => new Set(receivers.healthy.requests.map((r) => r.webhookId)).size === 6,
        'six deliveries to the healthy receiver',
        30_000,
        50,
      );
      // Had the healthy deliveries waited behind the silent one, its 10 s would have run out first.
      expect(receivers.silent.requests[0]!.closed).toBe(false);
      const verify = new StandardWebhook(hooks.healthy!.secret.slice('whsec_'.length));
      const got = receivers.healthy.requests.map((r) => verify.verify(r.body, r.headers as Record<string, string>) as { id: string });
      expect(new Set(got.map((e) => e.id))).toEqual(new Set(events.map((e) => e.id)));
      const healthyDeliveries = await eventually(async () => {
        const list = await deliveries(key, hooks.healthy!.id);
        return list.length === 6 ? list : undefined;
      }, 'the healthy deliveries to be listed');
      expect(healthyDeliveries.map((d) => [d.attempt, d.status_code, d.succeeded])).toEqual(Array(6).fill([1, 204, true]));

      // Each failing receiver: three attempts of the one event, the same webhook-id, each failed, then given up.
      const createdEvent = events.find((e) => e.sequence === 1)!;
      const expected = { silent: null, reset: null, error: 500 } as const;
      for (const name of ['reset', 'error', 'silent'] as const) {
        const list = await eventually(
          async () => {
            const l = await deliveries(key, hooks[name]!.id);
            return l.length === 3 ? l : undefined;
          },
          `three attempts to the ${name} receiver`,
          90_000,
          200,
        );
        expect({ name, attempts: list.map((d) => [d.event_id, d.attempt, d.status_code, d.succeeded]) }).toEqual({
          name,
          attempts: [3, 2, 1].map((n) => [createdEvent.id, n, expected[name], false]),
        });
        // The schedule's delay separates the attempts (each one's own wait comes before it: 10 s for a silent receiver).
        const at = list.map((d) => Date.parse(d.attempted_at)).reverse();
        const least = name === 'silent' ? 11_000 : 1_000;
        for (let i = 1; i < at.length; i++) expect({ name, gap: at[i]! - at[i - 1]! >= least }).toEqual({ name, gap: true });
        expect(receivers[name].requests.map((r) => r.webhookId)).toEqual(Array(3).fill(createdEvent.id));
        // Given up: no fourth attempt waits in the queue.
        await eventually(async () => (await queued(hooks[name]!.id)) === 0, `the ${name} delivery to leave the queue`);
      }
      expect(receivers.silent.requests.every((r) => r.closed)).toBe(true);
    } finally {
      await Promise.all(Object.values(receivers).map((r) => r.close()));
    }
  }, 150_000);
});
