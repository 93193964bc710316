/**
 * Decision 38 with WEBHOOK_ALLOW_INSECURE=false, as on every deployed stage: a webhook
 * URL must be https and its host public, or the creation is 400 INVALID_REQUEST and
 * nothing is stored. (Delivery-time refusal by DNS is in safe-post.test.ts.)
 */
import { call, createKey } from '../helpers/fixtures.js';

// Read by the configuration at its first use, after the test environment set it to true.
process.env.WEBHOOK_ALLOW_INSECURE = 'false';

describe('POST /webhooks on a deployed stage', () => {
  it.each([
    ['http://example.com/hook', 'url'],
    ['https://localhost/hook', 'url'],
    ['https://127.0.0.1/hook', 'url'],
    ['https://10.0.0.7/hook', 'url'],
    ['https://[::ffff:169.254.169.254]/hook', 'url'],
    [`https://example.com/${'x'.repeat(2049)}`, 'url'],
  ])('refuses %s with 400 naming the url, and stores nothing', async (url, field) => {
    const { key } = await createKey();
    const res = await call('POST', '/webhooks', { key, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    expect((await call('GET', '/webhooks', { key })).body.data.pagination.total).toBe(0);
  });

  it('takes a public https URL, and a description of up to 255 characters but not 256', async () => {
    const { key } = await createKey();
    const long = await call('POST', '/webhooks', { key, body: { url: 'https://example.com/hook', description: 'd'.repeat(256) } });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual([{ field: 'description', issue: expect.any(String) }]);
    const ok = await call('POST', '/webhooks', { key, body: { url: 'https://example.com/hook', description: 'd'.repeat(255) } });
    expect(ok.status).toBe(201);
    expect(ok.body.data.events).toEqual(['deployment.created', 'deployment.updated', 'operation.created', 'operation.updated']);
  });
});
