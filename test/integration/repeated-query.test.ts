/**
 * Decision 24 (amended): a known query parameter given more than once is 400
 * INVALID_REQUEST naming it, on every route with query parameters, the API's and the
 * dashboard's; an unknown one repeated is still ignored.
 */
import { dashboardRouteList } from '../../contract/dashboard-routes.js';
import { routeList } from '../../contract/routes.js';
import { repeatedQueryNames } from '../../functions/middleware/validate-input.js';
import { createDeployment, deployment, operationReaches, readyDeployment } from '../helpers/api.js';
import { type CallResult, call, createKey } from '../helpers/fixtures.js';

const fields = (res: CallResult) => (res.body.error?.details ?? []).map((d: { field: string }) => d.field);

describe('a known query parameter given twice (decision 24)', () => {
  it('?dry_run=true&dry_run=false is refused and applies nothing', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    for (const query of ['?dry_run=true&dry_run=false', '?dry_run=false&dry_run=true', '?dry_run=true&dry_run=true']) {
      const res = await call('PATCH', `/deployments/${d.id}${query}`, {
        key,
        body: { config: { size: 'large' } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(fields(res)).toEqual(['dry_run']);
    }
    const rollback = await call('POST', `/deployments/${d.id}/rollback?dry_run=true&dry_run=false`, { key, body: { revision: 1 } });
    expect(rollback.status).toBe(400);
    expect(fields(rollback)).toEqual(['dry_run']);
    expect((await deployment(key, d.id)).revision).toBe(1);
  });

  it.each([
    ['/deployments?page=1&page=2', ['page']],
    ['/deployments?per_page=5&status=ready&per_page=5', ['per_page']],
    ['/operations?type=deployment.create&type=deployment.destroy&page=1&page=1', ['page', 'type']],
    ['/events?resource_id=x&resource_id=y', ['resource_id']],
    ['/environments?per_page=1&per_page=2', ['per_page']],
  ])('GET %s is 400 naming %j', async (path, named) => {
    const { key } = await createKey();
    const res = await call('GET', path, { key });
    expect(res.status).toBe(400);
    expect(fields(res).sort()).toEqual(named);
  });

  it('the wait route too; an unknown parameter repeated is still ignored', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key);
    const op = created.body.data.operation_id;
    const res = await call('GET', `/operations/${op}/wait?timeout=1&timeout=2`, { key });
    expect(res.status).toBe(400);
    expect(fields(res)).toEqual(['timeout']);
    await operationReaches(key, op, ['succeeded']);
    const ignored = await call('GET', '/deployments?colour=red&colour=blue', { key });
    expect(ignored.status).toBe(200);
  });

  it('every route with a query, the dashboard API included, refuses each of its parameters repeated', () => {
    const withQuery = [...routeList, ...dashboardRouteList].filter((r) => r.query);
    expect(withQuery.length).toBeGreaterThan(15);
    for (const r of withQuery) {
      const names = repeatedQueryNames(r.query as NonNullable<typeof r.query>, {
        page: ['1', '2'],
        per_page: ['1', '2'],
        dry_run: ['true', 'false'],
        timeout: ['1', '1'],
        period: ['60', '300'],
      });
      expect(names.length).toBeGreaterThan(0);
    }
  });
});
