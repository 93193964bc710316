import { call, createKey } from '../helpers/fixtures.js';

describe('GET /environments', () => {
  it('returns env_default in the list envelope', async () => {
    const { key } = await createKey();
    const res = await call('GET', '/environments', { key });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body.data.items).toEqual([
      expect.objectContaining({ id: 'env_default', is_default: true, links: { self: '/api/v1/environments/env_default' } }),
    ]);
    expect(res.body.data.pagination).toEqual({ page: 1, per_page: 50, total: 1, pages: 1 });
  });
});
