/**
 * Webhooks (decision 38) end to end on the local pipeline: the API registers a
 * receiver on 127.0.0.1, the table's stream feeds the dispatcher, the queue the
 * deliverer, and the receiver verifies every delivery with the `standardwebhooks`
 * package. A receiver that fails is retried on the schedule, each attempt listed.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { deliverOnce } from '../../functions/app/webhook-deliveries.js';
import { ensureTable } from '../../local/dynamodb-local.js';
import { type EventPipeline, startEventPipeline } from '../../local/event-pipeline.js';
import { claimDue, deleteMessage } from '../../local/table-queue.js';
import { createDeployment, operationReaches } from '../helpers/api.js';
import { call, createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { receiver } from '../helpers/webhook-receiver.js';

// A table of its own: the event pipeline reads its stream from the start, and the shared
// table's stream holds every record the run has written (late in a run, more than a test's
// deadline to read through).
process.env.TABLE_NAME = 'deployments-webhooks';
beforeAll(() => ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!));

// Retries a second apart, so the schedule plays out inside a test.
process.env.WEBHOOK_RETRY_SCHEDULE = '1,1';
process.env.RATE_LIMIT_PER_MINUTE = '1000';

let pipeline: EventPipeline;
beforeAll(() => {
  pipeline = startEventPipeline({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!, tableName: process.env.TABLE_NAME!, dataDir: null });
});
afterAll(() => pipeline.stop());

describe('webhooks', () => {
  it('delivers every event of a create, signed per Standard Webhooks, as GET /events shows it', async () => {
    const { key, record } = await createKey();
    const r = await receiver();
    try {
      const made = await call('POST', '/webhooks', { key, body: { url: r.url, description: 'ci' } });
      expect(made.status).toBe(201);
      expect(made.body.data).toMatchObject({ url: r.url, events: expect.arrayContaining(['deployment.created']), description: 'ci' });
      const secret: string = made.body.data.secret;
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      // The secret is shown once: never again.
      const read = await call('GET', `/webhooks/${made.body.data.id}`, { key });
      expect(read.body.data).not.toHaveProperty('secret');
      expect(JSON.stringify((await call('GET', '/webhooks', { key })).body)).not.toContain(secret.slice(6));

      const created = await createDeployment(key);
      await operationReaches(key, created.body.data.operation_id, ['succeeded']);
      const events = (await call('GET', '/events?per_page=100', { key })).body.data.items;
      expect(events).toHaveLength(6);
      // Delivery latency is measured by npm run bench; here a slow machine only makes the wait longer.
      await eventually(async () => r.received.length >= 6, 'six deliveries', 60_000, 50);
      const verifier = new StandardWebhook(secret.slice('whsec_'.length));
      const delivered = r.received.map((d) => {
        expect(d.headers['content-type']).toBe('application/json');
        expect(d.headers['webhook-id']).toMatch(/^evt_/);
        return verifier.verify(d.body, d.headers as Record<string, string>) as { id: string; sequence: number };
      });
      // At least once, in any order: receivers order by sequence.
      expect([...new Set(delivered.map((e) => e.id))].sort()).toEqual(events.map((e: { id: string }) => e.id).sort());
      const bySequence = [...delivered].sort((a, b) => a.sequence - b.sequence);
      expect(bySequence).toEqual([...events].reverse());
      // Decision 46: the bodies say who made each change: the request's key, then the workflow.
      const actors = (bySequence as unknown as { actor: unknown }[]).map((e) => e.actor);
      const request = { type: 'api_key', id: record.id };
      expect(actors).toEqual([request, request, ...Array(4).fill({ type: 'system' })]);
    } finally {
      await r.close();
    }
  }, 120_000);

  it('retries a failing receiver on the schedule, with the same webhook-id, and lists every attempt', async () => {
    const { key } = await createKey();
    const r = await receiver([500, 503]);
    try {
      const made = await call('POST', '/webhooks', { key, body: { url: r.url, events: ['deployment.created'] } });
      await createDeployment(key);
      await eventually(async () => r.received.length >= 3, 'three attempts', 20_000, 50);
      expect(new Set(r.received.map((d) => d.headers['webhook-id'])).size).toBe(1);
      const deliveries = await eventually(async () => {
        const res = await call('GET', `/webhooks/${made.body.data.id}/deliveries`, { key });
        return res.body.data.pagination.total === 3 ? res.body.data : undefined;
      }, 'three recorded attempts');
      expect(
        deliveries.items.map((d: { attempt: number; status_code: number; succeeded: boolean }) => [d.attempt, d.status_code, d.succeeded]),
      ).toEqual([
        [3, 204, true],
        [2, 503, false],
        [1, 500, false],
      ]);
    } finally {
      await r.close();
    }
  });

  it('validates what it is given and keeps organizations apart', async () => {
    const { key } = await createKey();
    const stranger = await createKey();
    for (const body of [
      { url: 'ftp://example.com/x' },
      { url: 'https://u:p@example.com/x' },
      { url: 'https://example.com', events: [] },
      { url: 'https://example.com', events: ['deployment.deleted'] },
      { url: 'https://example.com', extra: 1 },
    ]) {
      const res = await call('POST', '/webhooks', { key, body });
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status: 400, code: 'INVALID_REQUEST' });
    }
    const made = await call('POST', '/webhooks', { key, body: { url: 'https://example.com/hook' } });
    for (const path of [`/webhooks/${made.body.data.id}`, `/webhooks/${made.body.data.id}/deliveries`, '/webhooks/wh_nope']) {
      expect((await call('GET', path, { key: stranger.key })).body.error.code).toBe('WEBHOOK_NOT_FOUND');
    }
    expect((await call('DELETE', `/webhooks/${made.body.data.id}`, { key: stranger.key })).status).toBe(404);
    expect((await call('GET', '/webhooks', { key: stranger.key })).body.data.pagination.total).toBe(0);
    const deleted = await call('DELETE', `/webhooks/${made.body.data.id}`, { key });
    expect(deleted.body.data).toEqual({ id: made.body.data.id, deleted: true });
    expect((await call('GET', `/webhooks/${made.body.data.id}`, { key })).status).toBe(404);
  });

  it('refuses a URL holding control characters (400 with details), and stores the URL as parsed and delivered to, not as sent', async () => {
    const { key } = await createKey();
    for (const url of [
      'https://8.8.8.8/a\r\nX-Injected: 1',
      'https://example.com/a\tb',
      'https://example.com/\u0000',
      'https://example.com/\u007f',
    ]) {
      const res = await call('POST', '/webhooks', { key, body: { url } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'INVALID_REQUEST',
        details: [{ field: 'url', issue: 'must not contain control characters' }],
      });
    }
    const made = await call('POST', '/webhooks', { key, body: { url: 'HTTPS://Example.COM:443/a/../hook path?q=ü' } });
    expect(made.status).toBe(201);
    const normalized = 'https://example.com/hook%20path?q=%C3%BC';
    expect(made.body.data.url).toBe(normalized);
    expect((await call('GET', `/webhooks/${made.body.data.id}`, { key })).body.data.url).toBe(normalized);
  });

  it('allows 10 webhooks per organization: the 11th is 409 WEBHOOK_LIMIT_REACHED, even when they come at once', async () => {
    const { key } = await createKey();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => call('POST', '/webhooks', { key, body: { url: `https://example.com/${i}` } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.error.code)).toEqual([
      'WEBHOOK_LIMIT_REACHED',
      'WEBHOOK_LIMIT_REACHED',
    ]);
    expect((await call('GET', '/webhooks', { key })).body.data.pagination.total).toBe(10);
  });

  it('puts back a message that comes before its due time, for the rest of the wait (SQS delays stop at 15 minutes)', async () => {
    const early = {
      orgId: 'org-queue',
      webhookId: `wh_${'0'.repeat(32)}`,
      eventSequence: 1,
      attempt: 4,
      notBefore: Date.now() + 3_600_000,
    };
    await deliverOnce(early);
    expect((await claimDue(100, new Date(Date.now() + 3_500_000))).filter((q) => q.message.webhookId === early.webhookId)).toEqual([]);
    const due = (await claimDue(100, new Date(Date.now() + 3_601_000))).filter((q) => q.message.webhookId === early.webhookId);
    expect(due.map((q) => q.message)).toEqual([{ orgId: 'org-queue', webhookId: early.webhookId, eventSequence: 1, attempt: 4 }]);
    await deleteMessage(due[0]!.receipt);
  });

  it('repeats the secret to an Idempotency-Key replay, and keeps it sealed in the table, the replay copy included', async () => {
    const { key, record } = await createKey();
    const first = await call('POST', '/webhooks', {
      key,
      body: { url: 'https://example.com/once' },
      headers: { 'Idempotency-Key': 'hook-1' },
    });
    const again = await call('POST', '/webhooks', {
      key,
      body: { url: 'https://example.com/once' },
      headers: { 'Idempotency-Key': 'hook-1' },
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const secretBytes = first.body.data.secret.slice('whsec_'.length);
    const { Items = [] } = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `ORG#${record.org_id}` },
      }),
    );
    expect(Items.map((i) => i.sk)).toEqual(expect.arrayContaining([`IDEM#hook-1`, `WH#${first.body.data.id}`]));
    expect(JSON.stringify(Items)).not.toContain(secretBytes);
  });

  it('repeats the secret on a replay only to the key that created it, and never once the webhook is gone', async () => {
    const { key, record } = await createKey();
    const writer = await createKey({ orgId: record.org_id, scopes: ['deployments:write'] });
    const send = (k: string) =>
      call('POST', '/webhooks', { key: k, body: { url: 'https://example.com/mine' }, headers: { 'Idempotency-Key': 'hook-owner' } });
    const first = await send(key);
    expect(first.status).toBe(201);
    const { secret, ...shown } = first.body.data;
    expect(secret).toMatch(/^whsec_/);

    const other = await send(writer.key);
    expect([other.status, other.headers['idempotent-replayed']]).toEqual([201, 'true']);
    expect(other.body.data).toEqual(shown);
    expect(JSON.stringify(other.body)).not.toContain('whsec_');
    expect((await send(key)).body.data).toEqual(first.body.data);

    expect((await call('DELETE', `/webhooks/${shown.id}`, { key })).status).toBe(200);
    for (const k of [key, writer.key]) {
      const after = await send(k);
      expect([after.status, after.headers['idempotent-replayed']]).toEqual([201, 'true']);
      expect(after.body.data).toEqual(shown);
      expect(JSON.stringify(after.body)).not.toContain('whsec_');
    }
  });
});
