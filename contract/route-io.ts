/**
 * What a caller sends and receives on a route of either route table, derived from the
 * route's zod schemas and its success schemas (types only), and the URL it calls. The typed client and the web
 * app both read it, so neither writes a route's types or its URL by hand.
 * No zod at run time: the web app bundles `routeTarget`.
 */
import type * as z from 'zod/mini';

type Schema<R, F extends string> = R extends { readonly [P in F]: infer S extends z.ZodMiniType } ? S : never;

/**
 * `data` of a route's success answer, or of the other success it may answer instead, from
 * the route's entry in responses.ts or dashboard-responses.ts (unknown for none).
 */
export type RouteData<E> = E extends { readonly data: infer D extends z.ZodMiniType }
  ? z.output<D> | (E extends { readonly or: { readonly data: infer O extends z.ZodMiniType } } ? z.output<O> : never)
  : unknown;
/** A route's path parameters. */
export type RouteParams<R> = [Schema<R, 'params'>] extends [never] ? undefined : z.input<Schema<R, 'params'>>;
/** A route's query parameters (numbers or strings; the API parses them). */
export type RouteQuery<R> = [Schema<R, 'query'>] extends [never]
  ? undefined
  : { [F in keyof z.input<Schema<R, 'query'>>]?: string | number };
/** A route's JSON body. */
export type RouteBody<R> = [Schema<R, 'body'>] extends [never] ? undefined : z.input<Schema<R, 'body'>>;

/**
 * A route's path with its `{name}` parameters filled in (encoded), then its query
 * (values that are undefined, null or empty left out). `id` names the route in the error.
 */
export function routeTarget(id: string, path: string, params?: object, query?: object): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = (params as Record<string, unknown> | undefined)?.[name];
    if (value === undefined || value === '') throw new TypeError(`${id}: path parameter ${name} is required`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') search.set(k, String(v));
  const qs = search.toString();
  return `${filled}${qs ? `?${qs}` : ''}`;
}
