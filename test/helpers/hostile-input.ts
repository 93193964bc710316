/**
 * fast-check generators of hostile HTTP requests: methods, paths, query strings, headers
 * and bodies a client (or an attacker) could send. Paths come from the route table, so a
 * new route is fuzzed without a change here; values are a mix of valid ones (so requests
 * get past the early checks) and wrong types, huge and negative numbers, unicode and NUL,
 * deeply nested and truncated JSON, duplicate keys, `__proto__`, invalid ids, repeated
 * parameters and headers, and oversized values.
 */
import * as fc from 'fast-check';
import { MAX_BODY_BYTES } from '../../contract/errors.js';
import { API_PREFIX, routeList } from '../../contract/routes.js';
import {
  APP_TYPES,
  DEPLOYMENT_STATUSES,
  EVENT_TYPES,
  OPERATION_STATUSES,
  OPERATION_TYPES,
  PHASE_NAMES,
  USER_ROLES,
} from '../../contract/vocabulary.js';

export interface HostileRequest {
  method: string;
  /** Path and query, as the request line carries them. */
  url: string;
  /** Name, value, name, value… in the order sent (names may repeat). */
  rawHeaders: string[];
  body: Buffer;
  sourceIp: string;
}

/** The ids and keys of a test's world that generated requests should hit as well as miss. */
export interface World {
  /** Keys by what they are: a valid one first, then revoked, expired, lacking scopes… */
  keys: readonly string[];
  ids: readonly string[];
  /** Ids only GET may name: records a write would really change (a test that must see every write refused keeps these out of writes). */
  readOnlyIds?: readonly string[];
}

const SPECIALS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\u202e',
  '🚀',
  'é',
  '%00',
  '%',
  '%E0%A4%A',
  '%2F',
  '../..',
  '..%2F..',
  '#',
  'ORG#other',
  '?',
  '&',
  '=',
  '"',
  "'",
  '\\',
  '<script>',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'toString',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x10',
  '1.5',
  '-1',
  '0',
  '999999999999999999999999',
  String(Number.MAX_SAFE_INTEGER + 2),
];

const uuid = fc.uuid().map((u) => u.toLowerCase());

/** Any string worth trying where a value goes. */
export const nasty: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIALS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.bigInt()).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 256, max: 5000 }).map((n) => 'x'.repeat(n)) },
);

/** An id-shaped value: the world's own, well-formed unknown ones, and malformed ones. */
const idLike = (world: World, method = 'GET') =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...world.ids, ...(method === 'GET' ? (world.readOnlyIds ?? []) : [])) },
    { weight: 1, arbitrary: uuid },
    { weight: 1, arbitrary: uuid.map((u) => `op_${u}`) },
    { weight: 1, arbitrary: uuid.map((u) => `dep_${u}`) },
    { weight: 1, arbitrary: uuid.map((u) => `wh_${u.replaceAll('-', '')}`) },
    { weight: 1, arbitrary: uuid.map((u) => u.toUpperCase()) },
    { weight: 2, arbitrary: nasty },
  );

/** Encoded as a client library would, or raw as a hand-written request line might be. */
const asSent = (value: fc.Arbitrary<string>) =>
  fc.tuple(value, fc.boolean()).map(([v, raw]) => (raw ? v.replace(/[?#/\s]/g, '') : encodeURIComponent(safeText(v))));

/** encodeURIComponent throws on a lone surrogate; replace it as a browser would. */
const safeText = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS', 'get', 'TRACE', 'FOO'];

/** A route's method and path with its parameters filled, sometimes another method, sometimes an extra segment. */
function routePath(world: World) {
  return fc
    .tuple(
      fc.constantFrom(...routeList),
      fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
    )
    .chain(([route, other]) => {
      // The fields of the route's body schema, so that some bodies are valid, or nearly.
      const fields = route.body && 'shape' in route.body ? Object.keys((route.body as { shape: object }).shape) : [];
      const method = other ?? route.method;
      return fc
        .tuple(
          fc.array(asSent(idLike(world, method)), { minLength: 3, maxLength: 3 }),
          fc.oneof(
            { weight: 24, arbitrary: fc.constant('') },
            { weight: 1, arbitrary: fc.constantFrom('/', '//', '/x', '/..', '/%2e%2e') },
            { weight: 1, arbitrary: asSent(nasty).map((s) => `/${s}`) },
          ),
        )
        .map(([values, suffix]) => {
          let i = 0;
          const path = route.path.replace(/\{\w+\}/g, () => values[i++] ?? '');
          return { method, path: `${API_PREFIX}${path}${suffix}` };
        })
        .chain((target) => bodyOf(fields).map((body) => ({ ...target, body })));
    });
}

/** Paths no route takes, and request targets that are not paths of the API at all. */
const strayPath = fc.oneof(
  fc.array(asSent(nasty), { maxLength: 4 }).map((segments) => `${API_PREFIX}/${segments.join('/')}`),
  fc.constantFrom(
    '/',
    '//',
    '///api/v1/deployments',
    '/api/v1',
    '/api/v2/deployments',
    '/API/V1/deployments',
    '*',
    '/api/v1/%00',
    '/api/v1/.%2e/key',
  ),
);

const QUERY_NAMES = ['page', 'per_page', 'status', 'type', 'resource_id', 'timeout', 'phase'];
const queryValue = (world: World) =>
  fc.oneof(
    fc.constantFrom(
      ...DEPLOYMENT_STATUSES,
      ...OPERATION_STATUSES,
      ...OPERATION_TYPES,
      ...EVENT_TYPES,
      ...PHASE_NAMES,
      '1',
      '2',
      '20',
      '50',
      '100',
      '101',
      '1000000000',
    ),
    idLike(world),
    nasty,
  );

/** A query string: known and unknown names, repeated names, encoded or raw. */
const queryString = (world: World) =>
  fc
    .array(fc.tuple(asSent(fc.oneof(fc.constantFrom(...QUERY_NAMES), nasty)), asSent(queryValue(world)), fc.boolean()), { maxLength: 6 })
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v, bare]) => (bare ? k : `${k}=${v}`)).join('&')}` : ''));

/** Header values travel on one line: no CR, LF or NUL reaches a handler through API Gateway. */
const headerText = nasty.map((v) => safeText(v).replace(/[\r\n\0]/g, ''));
const headerName = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,24}$/);

const keyHeader = (world: World) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant([world.keys[0]!]) },
    { weight: 3, arbitrary: fc.constantFrom(...world.keys).map((k) => [k]) },
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.constant(['']) },
    { weight: 1, arbitrary: headerText.map((v) => [v]) },
    // Repeated: API Gateway passes the last value in `headers`, all of them in `multiValueHeaders`.
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...world.keys), fc.constantFrom(...world.keys)).map(([a, b]) => [a, b]) },
  );

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'application/jsonx',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  '',
];

/** The headers of a request: the key, a media type, an Idempotency-Key, a request id, and strays. */
const headers = (world: World) =>
  fc
    .record({
      keyName: fc.constantFrom('X-API-Key', 'x-api-key', 'X-API-KEY'),
      keys: keyHeader(world),
      contentType: fc.oneof(
        { weight: 4, arbitrary: fc.constant(['application/json']) },
        { weight: 2, arbitrary: fc.array(fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerText), { maxLength: 2 }) },
      ),
      idempotencyKey: fc.option(fc.oneof(fc.string({ minLength: 1, maxLength: 12 }), fc.constant('k'.repeat(256)), headerText)),
      requestId: fc.option(fc.oneof(fc.stringMatching(/^[A-Za-z0-9._:-]{1,140}$/), headerText)),
      authorization: fc.option(fc.oneof(fc.constant('Bearer eyJhbGciOiJub25lIn0.e30.'), headerText)),
      extra: fc.array(fc.tuple(headerName, headerText), { maxLength: 3 }),
    })
    .map((h) => {
      const raw: string[] = [];
      for (const k of h.keys) raw.push(h.keyName, k);
      for (const c of h.contentType) raw.push('Content-Type', c);
      if (h.idempotencyKey !== null) raw.push('Idempotency-Key', safeText(h.idempotencyKey).replace(/[\r\n\0]/g, ''));
      if (h.requestId !== null) raw.push('X-Request-Id', h.requestId);
      if (h.authorization !== null) raw.push('Authorization', h.authorization);
      for (const [name, value] of h.extra) raw.push(name, value);
      return raw;
    });

/** Values for the body fields of every route: valid ones, and the wrong kinds of each. */
const FIELD_VALUES: Record<string, readonly unknown[]> = {
  app_type: [...APP_TYPES],
  name: ['etl', 'a'.repeat(64), 'a'.repeat(65), '-lead', 'sp ace'],
  environment_id: ['env_default', 'env_other'],
  username: ['alice', 'a'.repeat(65)],
  email: ['a@example.com', 'not-an-email'],
  role: [...USER_ROLES, 'owner'],
  url: [
    'https://hooks.example.com/in',
    'http://127.0.0.1/x',
    'https://user:pw@example.com/',
    'javascript:alert(1)',
    `https://e.com/${'a'.repeat(2048)}`,
  ],
  events: [[...EVENT_TYPES], ['deployment.created'], [], ['nope'], 'deployment.created'],
  description: ['hook', 'd'.repeat(256)],
};
const ALL_FIELDS = Object.keys(FIELD_VALUES);

/** A JSON object near a valid body of `fields`: each with a good or bad value, or absent, and a stray field now and then. */
const nearValidObject = (fields: readonly string[]) =>
  fc
    .tuple(
      fc.tuple(...fields.map((name) => fc.option(fc.constantFrom(...(FIELD_VALUES[name] ?? [null])), { freq: 4 }))),
      fc.option(
        fc.dictionary(
          fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ALL_FIELDS) }, { weight: 1, arbitrary: nasty }),
          fc.oneof(fc.constant(null), fc.jsonValue({ maxDepth: 2 }), nasty),
          { minKeys: 1, maxKeys: 3 },
        ),
        { freq: 2 },
      ),
    )
    .map(([good, stray]) => {
      const body: Record<string, unknown> = {};
      fields.forEach((name, i) => {
        if (good[i] !== null) body[name] = good[i];
      });
      for (const [k, v] of Object.entries(stray ?? {})) body[k] = v;
      return body;
    });

const nest = (depth: number, open: string, close: string, middle = '1') => `${open.repeat(depth)}${middle}${close.repeat(depth)}`;

/** Bodies: none, JSON of any shape, near-valid objects of `fields`, and text that is not quite JSON. */
const bodyOf = (fields: readonly string[]): fc.Arbitrary<Buffer> =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(Buffer.alloc(0)) },
    { weight: 8, arbitrary: nearValidObject(fields).map((o) => Buffer.from(JSON.stringify(o))) },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => Buffer.from(JSON.stringify(v) ?? '')) },
    {
      weight: 1,
      arbitrary: fc.tuple(nearValidObject(fields), fc.nat()).map(([o, cut]) => {
        const text = JSON.stringify(o);
        return Buffer.from(text.slice(0, cut % Math.max(1, text.length)));
      }),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: 30_000 })
        .chain((depth) =>
          fc.constantFrom(
            nest(depth, '[', ']'),
            nest(depth, '{"a":', '}'),
            nest(depth, '{"app_type":', '}', '"airflow"'),
            '['.repeat(depth),
          ),
        )
        .map((s) => Buffer.from(s)),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{"app_type":"airflow","app_type":"superset"}',
          '{"app_type":"airflow","app_type":7}',
          '{"app_type":"airflow","__proto__":{"admin":true}}',
          '{"__proto__":null}',
          '{"constructor":{"prototype":{"x":1}}}',
          '{"app_type":"airflow","name":"a\\u0000b"}',
          '{"app_type":"air\u0000flow"}',
          '{"app_type":"airflow"}garbage',
          '{"app_type":"airflow"}{"app_type":"superset"}',
          '\ufeff{"app_type":"airflow"}',
          '{"app_type":1e309}',
          '{"url":"https://example.com/","events":["deployment.created","deployment.created"]}',
          'null',
          '"text"',
          '12',
          '[]',
          '{}',
          ' ',
        )
        .map((s) => Buffer.from(s)),
    },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => Buffer.from(b)) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: MAX_BODY_BYTES - 2, max: MAX_BODY_BYTES + 64 })
        .map((size) => Buffer.from(`{"name":"${'x'.repeat(Math.max(0, size - 12))}"}`)),
    },
  );

const sourceIp = fc.oneof(
  { weight: 3, arbitrary: fc.constant('127.0.0.1') },
  { weight: 1, arbitrary: fc.ipV4() },
  { weight: 1, arbitrary: fc.ipV6() },
);

/** One hostile request against the world's keys and ids. */
export function hostileRequest(world: World): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      target: fc.oneof(
        { weight: 20, arbitrary: routePath(world) },
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.constantFrom(...METHODS), strayPath, bodyOf(ALL_FIELDS))
            .map(([method, path, body]) => ({ method, path, body })),
        },
      ),
      query: queryString(world),
      rawHeaders: headers(world),
      sourceIp,
    })
    .map(({ target, query, rawHeaders, sourceIp }) => ({
      method: target.method,
      url: `${target.path}${query}`,
      rawHeaders,
      body: target.body,
      sourceIp,
    }));
}
