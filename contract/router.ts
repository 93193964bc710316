/** Matches a request path against a route table (used by the local server and the fallback handler). */
import { DASHBOARD_API_PREFIX, type DashboardRoute, dashboardRouteList } from './dashboard-routes.js';
import { API_PREFIX, type Method, type Route, routeList } from './routes.js';

export type Match<R = Route> =
  | { kind: 'route'; route: R; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: Method[] }
  | { kind: 'not-found' };

function matcher<R extends { method: Method; path: string }>(prefix: string, list: readonly R[]) {
  const compiled = list.map((route) => {
    const names: string[] = [];
    const pattern = (prefix + route.path).replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return { route, names, regex: new RegExp(`^${pattern}/?$`) };
  });
  return (method: string, path: string): Match<R> => {
    const allow: Method[] = [];
    for (const { route, names, regex } of compiled) {
      const m = regex.exec(path);
      if (!m) continue;
      if (route.method === method) {
        const params: Record<string, string> = {};
        names.forEach((name, i) => {
          params[name] = safeDecode(m[i + 1] ?? '');
        });
        return { kind: 'route', route, params };
      }
      allow.push(route.method);
    }
    return allow.length ? { kind: 'method-not-allowed', allow: [...new Set(allow)] } : { kind: 'not-found' };
  };
}

/** The public API (/api/v1). */
export const matchRoute = matcher(API_PREFIX, routeList);
/** The dashboard's API (/dashboard/api). */
export const matchDashboardRoute = matcher<DashboardRoute>(DASHBOARD_API_PREFIX, dashboardRouteList);

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
