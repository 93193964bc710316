/**
 * The dashboard API, typed by the same route table and error types as the server: each
 * call names its route, its params, query and body and its answer typed from the route's
 * schemas; the user's token on every call, the `{data}` / `{error}` envelope unwrapped,
 * and one retry after a refresh when the token turned out to be expired.
 */

import type { dashboardResponses } from '../../contract/dashboard-responses.js';
import type { DashboardRoute, DashboardRouteId, dashboardRoutes } from '../../contract/dashboard-routes.js';
import type { ErrorCode } from '../../contract/errors.js';
import { type RouteBody, type RouteData, type RouteParams, type RouteQuery, routeTarget } from '../../contract/route-io.js';
import { currentToken, refresh } from './auth.js';
import type { DashboardConfig } from './config.js';

/**
 * Each route's method and path, put in by dashboard/build.ts from the route table: the
 * table itself holds zod schemas, which the browser does not need.
 */
declare const DASHBOARD_ROUTES: { readonly [K in DashboardRouteId]: Pick<DashboardRoute, 'method' | 'path'> };

type Route<K extends DashboardRouteId> = (typeof dashboardRoutes)[K];
/** What a route answers in `data`, typed by its success schemas. */
type DataOf<K extends DashboardRouteId> = RouteData<(typeof dashboardResponses)[K]>;

/** A call's input: the path parameters and body a route declares are required, and then so is the input. */
export type CallInput<K extends DashboardRouteId> = {
  query?: RouteQuery<Route<K>>;
  /** The revision the change was reviewed against (sent as If-Match): a change since is refused with 412, so two admins do not overwrite each other (decision 42). */
  ifMatch?: string;
} & (RouteParams<Route<K>> extends undefined ? { params?: undefined } : { params: RouteParams<Route<K>> }) &
  (RouteBody<Route<K>> extends undefined ? { body?: undefined } : { body: RouteBody<Route<K>> });

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'UNEXPECTED_RESPONSE',
    message: string,
    /** The fields a 400 names, so that a form can show each problem at its field. */
    readonly details: readonly { field: string; issue: string }[] = [],
  ) {
    super(message);
  }
}

let base = '';
export function configureApi(c: DashboardConfig): void {
  base = c.apiBase;
}

async function send(method: string, target: string, token: string, body?: unknown, ifMatch?: string): Promise<Response> {
  return fetch(`${base}${target}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export async function api<K extends DashboardRouteId>(
  id: K,
  ...[input]: Partial<CallInput<K>> extends CallInput<K> ? [CallInput<K>?] : [CallInput<K>]
): Promise<DataOf<K>> {
  const { method, path } = DASHBOARD_ROUTES[id];
  const target = routeTarget(id, path, input?.params, input?.query);
  let res = await send(method, target, await currentToken(), input?.body, input?.ifMatch);
  if (res.status === 401) res = await send(method, target, await refresh(), input?.body, input?.ifMatch);
  const parsed = (await res.json().catch(() => null)) as {
    data?: unknown;
    error?: { code: ErrorCode; message: string; details?: { field: string; issue: string }[] };
  } | null;
  if (res.ok && parsed && 'data' in parsed) return parsed.data as DataOf<K>;
  // The fields a 400 names, so that a form can say which of its entries is wrong.
  const details = parsed?.error?.details?.map((d) => `${d.field} ${d.issue}`).join('; ');
  throw new ApiFailure(
    res.status,
    parsed?.error?.code ?? 'UNEXPECTED_RESPONSE',
    `${parsed?.error?.message ?? `The server answered ${res.status}.`}${details ? ` (${details})` : ''}`,
    parsed?.error?.details,
  );
}
