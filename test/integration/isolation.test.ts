/**
 * Isolation between organizations (decision 30): a matrix over every route that names a record or lists
 * records, driven by the route table itself. Another organization's credentials get the
 * route's 404 for every record of the first (reads and writes alike, and the writes
 * change nothing), and its lists and totals, filtered by the first's ids or not, show
 * none of them, while the owner's same requests do (so each check could fail).
 *
 * A surface is one route table with its way of authenticating: the public API with API
 * keys, and the dashboard API (`/dashboard/api/...`) with the user pool's ID tokens of an
 * admin. A route of any surface that names a parameter the matrix cannot fill fails the
 * test until it is given one.
 */
import { dashboardResponses } from '../../contract/dashboard-responses.js';
import { dashboardRoutes } from '../../contract/dashboard-routes.js';
import { responses } from '../../contract/responses.js';
import { routes } from '../../contract/routes.js';
import { readyDeployment } from '../helpers/api.js';
import { type DashboardSession, startDashboardSession, TEST_PASSWORD } from '../helpers/dashboard-session.js';
import { type CallResult, call, createKey, newOrgId } from '../helpers/fixtures.js';
import { fingerprintChanges, tableFingerprint } from '../helpers/table-fingerprint.js';

process.env.RATE_LIMIT_PER_MINUTE = '10000';

/** One organization's records: what the matrix fills path parameters with. */
interface Records {
  deployment_id: string;
  /** A revision of the owner's deployment: another organization gets the deployment's 404. */
  revision: string;
  operation_id: string;
  webhook_id: string;
  key_id: string;
}

/** What each parameter names, by the code another organization must get for it. */
const NOT_FOUND: Record<keyof Records, string> = {
  deployment_id: 'DEPLOYMENT_NOT_FOUND',
  revision: 'DEPLOYMENT_NOT_FOUND',
  operation_id: 'OPERATION_NOT_FOUND',
  webhook_id: 'WEBHOOK_NOT_FOUND',
  key_id: 'API_KEY_NOT_FOUND',
};

/** What the matrix reads of a route, of either route table. */
interface MatrixRoute {
  method: string;
  path: string;
  handler: string;
  access?: unknown;
  /** The schema of its success's `data` (responses.ts, dashboard-responses.ts); none for an answer that is not JSON. */
  data?: unknown;
}

/** A route table's routes, each with the schema of its success's `data`. */
const withData = (table: Record<string, Omit<MatrixRoute, 'data'>>, answers: Record<string, { data: unknown }>): MatrixRoute[] =>
  Object.entries(table).map(([id, route]) => ({ ...route, data: answers[id]?.data }));

/** What the matrix reads of an answer, of either surface. */
type Answer = Pick<CallResult, 'status' | 'body'>;

/** The credentials of one organization on a surface. */
type Credentials = { send(method: string, path: string, body?: unknown): Promise<Answer> };

interface Surface {
  name: string;
  routes: readonly MatrixRoute[];
  /** Credentials for a fresh key (or user) of the organization. */
  signIn(orgId: string): Promise<Credentials>;
  /** Parameters that name no organization's record (shared, or public): left out of the matrix. */
  shared: readonly string[];
  /** Lists of what every organization sees alike. */
  sharedLists: readonly string[];
}

const apiKeySignIn = async (orgId: string): Promise<Credentials> => {
  const { key } = await createKey({ orgId });
  return { send: (method, path, body) => call(method, path, { key, ...(body === undefined ? {} : { body }) }) };
};

let dashboard: DashboardSession;
beforeAll(async () => {
  dashboard = await startDashboardSession();
});
afterAll(() => dashboard.close());

/** An admin of the organization, signed in to the dashboard: the most a token may do. */
const dashboardSignIn = async (orgId: string): Promise<Credentials> => {
  const session = dashboard;
  const email = `admin-${newOrgId()}@example.test`;
  await session.users(['create', '--org', orgId, '--email', email, '--role', 'admin', '--password', TEST_PASSWORD]);
  const auth = { Authorization: `Bearer ${await session.signIn(email)}` };
  return { send: (method, path, body) => session.send(method, path, auth, body) };
};

const SURFACES: readonly Surface[] = [
  // environment_id: environments are the same for everyone today (env_default); asset: the public docs page.
  {
    name: 'public API',
    routes: withData(routes, responses),
    signIn: apiKeySignIn,
    shared: ['environment_id', 'asset'],
    sharedLists: ['/environments'],
  },
  { name: 'dashboard API', routes: withData(dashboardRoutes, dashboardResponses), signIn: dashboardSignIn, shared: [], sharedLists: [] },
];

/** A valid body for each write that takes one, so that only the owner check can refuse it. */
const BODIES: Record<string, unknown> = {
  'create-dag-sync': {},
  'create-app-user': { username: 'mallory', email: 'm@example.com', role: 'admin' },
  'cancel-operation': {},
  'update-deployment': { config: { size: 'large' } },
  'rollback-deployment': { revision: 1 },
  'dashboard-rotate-key': { grace_seconds: 0 },
  'dashboard-update-deployment': { config: { size: 'large' } },
  'dashboard-rollback-deployment': { revision: 1 },
};

const paramsOf = (route: MatrixRoute) => [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const fill = (route: MatrixRoute, records: Records) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in records)) throw new Error(`The isolation matrix has no record for {${name}} (${route.method} ${route.path})`);
    return records[name as keyof Records];
  });
const isList = (route: MatrixRoute) =>
  route.method === 'GET' && route.data !== undefined && 'items' in (route.data as { shape?: object }).shape!;

/** A list's total, or its length for a list that is never paged (the dashboard's keys). */
const totalOf = (res: Answer): number => res.body.data.pagination?.total ?? res.body.data.items.length;

describe.each(SURFACES)('isolation between organizations: $name', (surface) => {
  const owner = newOrgId();
  let records: Records;
  let ownerCreds: Credentials;
  let stranger: Credentials;

  beforeAll(async () => {
    ownerCreds = await surface.signIn(owner);
    const { key, record } = await createKey({ orgId: owner });
    const d = await readyDeployment(key);
    const hook = await call('POST', '/webhooks', { key, body: { url: 'https://hooks.example.com/iso' } });
    // Every workflow of the owner is over, so nothing but a crossed request could change its records.
    records = {
      deployment_id: d.id,
      revision: '1',
      operation_id: d.links.operation.split('/').pop(),
      webhook_id: hook.body.data.id,
      key_id: record.id,
    };
    stranger = await surface.signIn(newOrgId());
  }, 60_000);

  const named = surface.routes.filter((r) => r.access !== 'public' && paramsOf(r).some((p) => !surface.shared.includes(p)));
  it.each(named.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: another organization gets 404, and the record is untouched',
    async (_, route) => {
      const path = fill(route, records);
      const notFound = NOT_FOUND[paramsOf(route).at(-1) as keyof Records];
      // The organization's partitions, and its keys' items (which live under the key's hash).
      const ownedBy = { partitions: [`ORG#${owner}`], orgs: [owner] };
      const before = await tableFingerprint(ownedBy);
      const res = await stranger.send(route.method, path, BODIES[route.handler]);
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: notFound });
      expect(JSON.stringify(res.body)).not.toContain(owner);
      expect(fingerprintChanges(before, await tableFingerprint(ownedBy))).toEqual([]);
      // The owner can reach it: the 404 above is the organization check, not a bad path.
      if (route.method === 'GET') expect((await ownerCreds.send('GET', path)).status).toBe(200);
    },
  );

  /** Filters that name the owner's records, for the lists that take them. */
  const FILTERS: Record<string, (r: Records) => string[]> = {
    '/operations': (r) => [
      `?resource_id=${r.deployment_id}`,
      `?resource_id=dep_${r.deployment_id}`,
      '?status=succeeded',
      '?type=deployment.create',
    ],
    '/events': (r) => [`?resource_id=${r.deployment_id}`, `?resource_id=${r.operation_id}`, '?type=deployment.created'],
    '/deployments': () => ['?status=ready'],
  };
  const lists = surface.routes.filter(
    (r) => r.access !== 'public' && isList(r) && paramsOf(r).length === 0 && !surface.sharedLists.includes(r.path),
  );
  it.each(lists.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: shows another organization none of them, nor counts them',
    async (_, route) => {
      for (const query of ['', ...(FILTERS[route.path]?.(records) ?? [])]) {
        const theirs = await stranger.send('GET', `${route.path}${query}`);
        expect({ query, status: theirs.status, total: totalOf(theirs), items: theirs.body.data.items }).toEqual({
          query,
          status: 200,
          total: 0,
          items: [],
        });
        const mine = await ownerCreds.send('GET', `${route.path}${query}`);
        expect({ query, total: totalOf(mine) > 0 }).toEqual({ query, total: true });
      }
    },
  );
});
