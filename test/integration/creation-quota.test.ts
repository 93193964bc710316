import { createDeployment } from '../helpers/api.js';
import { call, createKey } from '../helpers/fixtures.js';

const hourOf = (ms: number) => Math.floor(ms / 3_600_000);

describe('the creation quota (decision 32)', () => {
  it('lets exactly 10 of 12 concurrent creations in one organization through; the rest are 429 and create nothing', async () => {
    // A clock hour could roll over mid-burst (the quota then resets); run again in that case.
    for (let attempt = 1; ; attempt++) {
      const { key, record } = await createKey();
      const second = await createKey({ orgId: record.org_id }); // the quota is per organization, not per key
      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => createDeployment(i % 2 ? key : second.key)));
      const ended = Date.now();
      if (hourOf(started) !== hourOf(ended) && attempt < 2) continue;

      expect(results.filter((r) => r.status === 202)).toHaveLength(10);
      const refused = results.filter((r) => r.status === 429);
      expect(refused).toHaveLength(2);
      const nextHour = (hourOf(started) + 1) * 3600;
      for (const r of refused) {
        expect(r.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
        expect(r.body.error.message).toMatch(/10 deployment creations per hour/);
        expect(r.headers['x-ratelimit-remaining']).toBe('0');
        const retryAfter = Number(r.headers['retry-after']);
        expect(r.body.error.message).toContain(`retry after ${retryAfter} seconds`.replace('retry', 'Retry'));
        // Retry-After runs to the next clock hour, as seen at some instant during the request.
        expect(retryAfter).toBeGreaterThanOrEqual(nextHour - Math.ceil(ended / 1000));
        expect(retryAfter).toBeLessThanOrEqual(nextHour - Math.floor(started / 1000));
      }
      expect((await call('GET', '/deployments', { key })).body.data.pagination.total).toBe(10);
      expect((await call('GET', '/operations', { key })).body.data.pagination.total).toBe(10);
      // Another organization is not affected.
      expect((await createDeployment((await createKey()).key)).status).toBe(202);
      return;
    }
  });
});
