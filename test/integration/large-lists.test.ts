/**
 * Decision 225: a page holds min(per_page, what is left) items whatever their size. Events
 * of a deployment with a big configuration carry it (and its previous values, and update
 * operations their `changes`) at ~100 KB each, so one DynamoDB Query (1 MB at most) cannot
 * read a page of them; the list must still be whole, on DynamoDB Local.
 */
import { createDeployment, operationReaches } from '../helpers/api.js';
import { dynamoCallsOf } from '../helpers/dynamo-calls.js';
import { call, createKey } from '../helpers/fixtures.js';

process.env.RATE_LIMIT_PER_MINUTE = '1000';

/** 15 values of 4,000 characters: 60 KB, inside decision 41's 65,536 bytes. */
const bigEnv = (tag: string) =>
  Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`V${i}`, { value: `${tag}${i}`.padEnd(4000, tag) }]));

describe('lists of large items (decision 225)', () => {
  it('GET /events pages hold per_page events, and pages/next reach the rest', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key, { app_type: 'airflow', config: { env: bigEnv('a') } });
    expect(created.status).toBe(202);
    const { deployment_id: id, operation_id } = created.body.data;
    await operationReaches(key, operation_id, ['succeeded']);
    for (const tag of ['b', 'c']) {
      const res = await call('PATCH', `/deployments/${id}`, {
        key,
        body: { config: { env: bigEnv(tag) } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      expect(res.status).toBe(202);
      await operationReaches(key, res.body.data.operation_id, ['succeeded']);
    }

    const all = await call('GET', '/events?per_page=100', { key });
    const total = all.body.data.pagination.total as number;
    expect(all.body.data.items).toHaveLength(total);
    // The point of the test: these events together are well past one Query's 1 MB.
    expect(Buffer.byteLength(JSON.stringify(all.body.data.items))).toBeGreaterThan(1_200_000);
    expect(all.body.data.items.map((e: { sequence: number }) => e.sequence)).toEqual(Array.from({ length: total }, (_, i) => total - i));

    // Paged through 5 at a time, every event once, and `next` null only on the last page.
    const seen: number[] = [];
    let next: string | null = '/events?per_page=5';
    let pages = 0;
    while (next) {
      const res: Awaited<ReturnType<typeof call>> = await call('GET', next.replace(/^\/api\/v1/, ''), { key });
      expect(res.body.data.items).toHaveLength(Math.min(5, total - seen.length));
      seen.push(...res.body.data.items.map((e: { sequence: number }) => e.sequence));
      expect(res.body.data.pagination.pages).toBe(Math.ceil(total / 5));
      next = res.body.data.links.next;
      pages++;
    }
    expect(pages).toBe(Math.ceil(total / 5));
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => total - i));

    // A type filter reads the same way.
    const updates = await call('GET', '/events?per_page=100&type=operation.updated', { key });
    expect(updates.body.data.items).toHaveLength(updates.body.data.pagination.total);
    expect(updates.body.data.pagination.total).toBeGreaterThan(8);
  });

  it('a page of small items still takes one Query (the call budgets of the benchmark)', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key, { app_type: 'airflow' });
    await operationReaches(key, created.body.data.operation_id, ['succeeded']);
    const { result, calls } = await dynamoCallsOf(() => call('GET', '/events?per_page=100', { key }));
    expect(result.body.data.items).toHaveLength(result.body.data.pagination.total);
    expect(calls.filter((c) => c.command === 'QueryCommand')).toHaveLength(1);
  });
});
