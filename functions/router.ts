/** Matches a request path against the route table (used by the local server and the fallback handler). */
import { API_PREFIX, type Method, type Route, routeList } from './routes.js';

export type Match =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: Method[] }
  | { kind: 'not-found' };

const compiled = routeList.map((route) => {
  const names: string[] = [];
  const pattern = (API_PREFIX + route.path).replace(/\{(\w+)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { route, names, regex: new RegExp(`^${pattern}/?$`) };
});

export function matchRoute(method: string, path: string): Match {
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
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
