/**
 * The success schemas live apart from the route tables (contract/responses.ts,
 * contract/dashboard-responses.ts, decision 295), and still every route has its own: the
 * type system refuses a table without one, and this checks the tables as data, as the
 * OpenAPI document, the client and the dashboard read them.
 */
import { dashboardResponses } from '../../contract/dashboard-responses.js';
import { dashboardRoutes } from '../../contract/dashboard-routes.js';
import { responseOf, responses } from '../../contract/responses.js';
import { type RouteId, routes } from '../../contract/routes.js';

interface Entry {
  data?: unknown;
  or?: { data?: unknown; description?: string };
}
const isSchema = (x: unknown) => typeof (x as { safeParse?: unknown } | undefined)?.safeParse === 'function';

/** Each route's entry, against what its route declares: a schema for JSON, another for `success.or`. */
function check(table: Record<string, { success: object }>, entryOf: (id: string) => Entry | undefined, entries: object) {
  for (const [id, { success }] of Object.entries(table)) {
    const entry = entryOf(id);
    const json = !('contentType' in success);
    expect({ id, data: isSchema(entry?.data), or: isSchema(entry?.or?.data) }).toEqual({ id, data: json, or: 'or' in success });
  }
  expect(Object.keys(table)).toEqual(expect.arrayContaining(Object.keys(entries)));
}

it('gives every JSON route of the API its data schema, and its other success’s exactly when it has one', () => {
  check(routes, (id) => responseOf(id as RouteId), responses);
  for (const [id, e] of Object.entries(responses as Record<string, Entry>))
    if (e.or) expect({ id, description: typeof e.or.description }).toEqual({ id, description: 'string' });
});

it('gives every dashboard route its data schema, and its other success’s exactly when it has one', () => {
  check(dashboardRoutes, (id) => (dashboardResponses as Record<string, Entry>)[id], dashboardResponses);
});

it('has no schema for the routes that answer no JSON envelope', () => {
  const raw = (Object.keys(routes) as RouteId[]).filter((id) => 'contentType' in routes[id].success);
  expect(raw.sort()).toEqual(['getDocs', 'getDocsAsset', 'getOpenApi']);
  for (const id of raw) expect({ id, schemas: responseOf(id) }).toEqual({ id, schemas: undefined });
  expect(responseOf('getDeployment')).toBe(responses.getDeployment);
});
