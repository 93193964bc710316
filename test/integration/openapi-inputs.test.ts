/**
 * The document's request schemas against what the service really takes: every path,
 * query and body schema of every route in the route table is tried (ajv, JSON Schema
 * 2020-12) on real values from a run on DynamoDB Local (the ids of a deployment, its
 * operation, a webhook, an event) and on samples made from each schema, and compared
 * with the route's own zod validator:
 *   - a value the validator accepts, the document accepts (a generated client never
 *     refuses a request the service takes);
 *   - a value the validator refuses, the document refuses too, unless the rule is one a
 *     schema cannot state (UNSTATED, each with its reason).
 * Path ids are read as any text and answered 404 when they name nothing, so there the
 * document must accept every real id, and what it refuses the service answers with a 4xx.
 * A route added to the table is checked the same way; a path parameter with no real
 * value fails the test until REAL_PATH_VALUES names one.
 */
import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type formatsPlugin from 'ajv-formats';
import * as z from 'zod/mini';
import { API_PREFIX, type Route, routeList } from '../../contract/routes.js';
import { openApiDocument } from '../../functions/docs/openapi-document.js';
import { call, createKey } from '../helpers/fixtures.js';

const addFormats = createRequire(import.meta.url)('ajv-formats') as typeof formatsPlugin.default;
const DOC_ID = 'https://openapi.local/openapi.json';

type Schema = Record<string, any>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  schema: Schema;
}

const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, Schema>>; components: Schema };
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
ajv.addSchema({ ...structuredClone(doc), $id: DOC_ID });
const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
const validators = new Map<string, ValidateFunction>();
function validatorAt(ptr: string): ValidateFunction {
  const v = validators.get(ptr) ?? ajv.compile({ $ref: DOC_ID + ptr });
  validators.set(ptr, v);
  return v;
}
function resolve(node: Schema): Schema {
  if (!node?.$ref) return node;
  const parts = (node.$ref as string).replace(/^#\//, '').split('/');
  return resolve(parts.reduce<Schema>((n, k) => n?.[k.replaceAll('~1', '/').replaceAll('~0', '~')], doc));
}

const opOf = (route: Route) => doc.paths[API_PREFIX + route.path]![route.method.toLowerCase()]!;
const parametersOf = (route: Route): Parameter[] => (opOf(route).parameters as Schema[]).map(resolve) as Parameter[];

/**
 * Refusals of the validator that no schema can state, by route and field, each with its
 * reason (none today: what only the handlers check, such as a webhook URL being https,
 * is not the validator's either).
 */
const UNSTATED: { route: string; field: string; why: string }[] = [];

/** The real values of the run, by parameter name, for every path parameter of the table. */
const REAL_PATH_VALUES: Record<string, string[]> = {};
/** More real values each string may be tried with (ids of every kind the run made). */
const realIds: string[] = [];
let key = '';

beforeAll(async () => {
  ({ key } = await createKey());
  const created = await call('POST', '/deployments', { key, body: { app_type: 'airflow', name: 'oas-inputs' } });
  expect(created.status).toBe(202);
  const { deployment_id, operation_id } = created.body.data as { deployment_id: string; operation_id: string };
  const webhook = await call('POST', '/webhooks', { key, body: { url: 'http://127.0.0.1:9/oas', description: 'oas' } });
  expect(webhook.status).toBe(201);
  const events = await call('GET', `/events?resource_id=${deployment_id}`, { key });
  expect(events.status).toBe(200);
  const environments = await call('GET', '/environments', { key });
  const revisions = await call('GET', `/deployments/${deployment_id}/revisions`, { key });
  Object.assign(REAL_PATH_VALUES, {
    deployment_id: [deployment_id, `dep_${deployment_id}`],
    operation_id: [operation_id],
    webhook_id: [webhook.body.data.id],
    environment_id: environments.body.data.items.map((e: { id: string }) => e.id),
    revision: revisions.body.data.items.map((r: { revision: number }) => String(r.revision)),
    asset: resolve(parametersOf(routeList.find((r) => r.path.includes('{asset}'))!).find((p) => p.name === 'asset')!.schema).enum,
  });
  realIds.push(
    deployment_id,
    `dep_${deployment_id}`,
    deployment_id.toUpperCase(),
    operation_id,
    webhook.body.data.id,
    ...events.body.data.items.map((e: { id: string }) => e.id),
  );
}, 60_000);

/** Samples for a schema: valid-looking and broken ones, named so a failure says which. */
function samples(schema: Schema): [string, unknown][] {
  const s = resolve(schema);
  const out: [string, unknown][] = [
    ['null', null],
    ['an object', { a: 1 }],
  ];
  if (s.enum) out.push(...s.enum.map((v: unknown) => [`enum ${v}`, v] as [string, unknown]), ['not in the enum', 'nope']);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.includes('string') || s.oneOf || s.anyOf) {
    const max = typeof s.maxLength === 'number' ? s.maxLength : 64;
    out.push(
      ['empty', ''],
      ['one letter', 'a'],
      ['a space', ' '],
      ['maxLength letters', 'x'.repeat(max)],
      ['maxLength + 1 letters', 'x'.repeat(max + 1)],
      ['text with a slash and flag', 'abc/i'],
      ['a number', 12],
      ...realIds.flatMap((id, i): [string, unknown][] => [
        [`real id ${i}`, id],
        [`real id ${i} + "/i"`, `${id}/i`],
        [`real id ${i} + "x"`, `${id}x`],
      ]),
    );
  }
  if (types.includes('integer') || types.includes('number')) {
    out.push(['0', 0], ['1', 1], ['-1', -1], ['100', 100], ['101', 101], ['2^31 - 1', 2 ** 31 - 1], ['2^31', 2 ** 31], ['1.5', 1.5]);
    if (typeof s.minimum === 'number') out.push(['minimum', s.minimum], ['minimum - 1', s.minimum - 1]);
    if (typeof s.maximum === 'number') out.push(['maximum', s.maximum], ['maximum + 1', s.maximum + 1]);
  }
  if (types.includes('boolean')) out.push(['true', true], ['false', false], ['"true"', 'true']);
  if (types.includes('array')) {
    const item = samples(s.items ?? {}).find(([, v]) => resolve(s.items ?? {}).enum?.includes(v))?.[1] ?? 'a';
    out.push(['empty array', []], ['one item', [item]], ['maxItems + 1 items', Array(((s.maxItems as number) ?? 4) + 1).fill(item)]);
  }
  return out;
}

/** What a typed client sends for a query value: integers as their decimal text, strings as they are. */
function queryText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

interface Mismatch {
  route: string;
  field: string;
  sample: string;
  value: unknown;
  validator: boolean;
  document: boolean;
}
const show = (m: Mismatch) =>
  `${m.route} ${m.field} = ${JSON.stringify(m.value)?.slice(0, 80)} (${m.sample}): validator ${m.validator ? 'accepts' : 'refuses'}, document ${m.document ? 'accepts' : 'refuses'}`;
const unstated = (m: Mismatch) => UNSTATED.some((u) => u.route === m.route && u.field === m.field);

describe('the request schemas of the OpenAPI document', () => {
  it('accept every real id of a run for the path parameters; the service answers 4xx to what they refuse', async () => {
    const missing: string[] = [];
    const refused: string[] = [];
    for (const route of routeList) {
      for (const p of parametersOf(route).filter((p) => p.in === 'path')) {
        const values = REAL_PATH_VALUES[p.name];
        if (!values?.length) {
          missing.push(`${route.method} ${route.path}: {${p.name}}`);
          continue;
        }
        const v = ajv.compile(resolve(p.schema));
        for (const value of values) if (!v(value)) refused.push(`${route.method} ${route.path}: ${p.name} = ${value}`);
      }
    }
    expect({ missing, refused }).toEqual({ missing: [], refused: [] });

    // What the document refuses names nothing: GETs, so the run changes nothing.
    for (const route of routeList.filter((r) => r.method === 'GET' && r.params && !r.path.includes('{asset}'))) {
      for (const p of parametersOf(route).filter((p) => p.in === 'path')) {
        const tooLong = 'x'.repeat((resolve(p.schema).maxLength as number) + 1);
        expect(ajv.validate(resolve(p.schema), tooLong)).toBe(false);
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === p.name ? tooLong : REAL_PATH_VALUES[name]![0]!));
        const res = await call('GET', path, { key });
        expect({ route: route.path, param: p.name, status: res.status >= 400 && res.status < 500 }).toEqual({
          route: route.path,
          param: p.name,
          status: true,
        });
      }
    }
  });

  it('accept every query value the route validators accept, and refuse what they refuse', () => {
    const mismatches: Mismatch[] = [];
    let tried = 0;
    for (const route of routeList.filter((r) => r.query instanceof z.ZodMiniObject)) {
      const name = `${route.method} ${route.path}`;
      for (const p of parametersOf(route).filter((p) => p.in === 'query')) {
        const v = ajv.compile(resolve(p.schema));
        for (const [sample, value] of samples(p.schema)) {
          const text = queryText(value);
          if (text === undefined) continue;
          // A boolean's text in a query is `true`/`false` whatever the client typed: the string
          // sample checks bodies, where "true" and true differ.
          if (typeof value === 'string' && resolve(p.schema).type === 'boolean') continue;
          tried++;
          const validator = z.safeParse(route.query!, { [p.name]: text }).success;
          // A typed client sends the value the schema types, as the text the service reads.
          const document = v(value);
          if (validator !== document) mismatches.push({ route: name, field: p.name, sample, value, validator, document });
        }
      }
    }
    expect(tried).toBeGreaterThan(100);
    expect(mismatches.filter((m) => m.validator || !unstated(m)).map(show)).toEqual([]);
  });

  it('accept every body the route validators accept, and refuse what they refuse, field by field', () => {
    const mismatches: Mismatch[] = [];
    let tried = 0;
    for (const route of routeList.filter((r) => r.body)) {
      const name = `${route.method} ${route.path}`;
      const op = opOf(route);
      for (const [mediaType, media] of Object.entries(op.requestBody.content as Record<string, Schema>)) {
        if (!mediaType.includes('json')) continue;
        const v = validatorAt(
          pointer('paths', API_PREFIX + route.path, route.method.toLowerCase(), 'requestBody', 'content', mediaType, 'schema'),
        );
        const base = (media.example ?? {}) as Record<string, unknown>;
        const check = (field: string, sample: string, body: unknown) => {
          tried++;
          const accepted = z.safeParse(route.body!, structuredClone(body)).success;
          const document = v(body);
          if (accepted !== document) mismatches.push({ route: name, field, sample, value: body, validator: accepted, document });
        };
        check('(example)', 'the example', base);
        check('(body)', 'not an object', 'text');
        check('(body)', 'an unknown field', { ...base, unknown_field: 1 });
        for (const [field, schema, parentPath] of fieldsOf(resolve(media.schema))) {
          for (const [sample, value] of samples(schema))
            check(field, sample, withValue(base, [...parentPath, field.split('.').at(-1)!], value));
          check(field, 'absent', withValue(base, [...parentPath, field.split('.').at(-1)!], undefined));
        }
      }
    }
    expect(tried).toBeGreaterThan(200);
    expect(mismatches.filter((m) => m.validator || !unstated(m)).map(show)).toEqual([]);
    // Each exception is still needed: one that no longer excuses anything is removed.
    expect(UNSTATED.filter((u) => !mismatches.some((m) => m.route === u.route && m.field === u.field))).toEqual([]);
  });
});

/** The fields of an object schema, nested objects included, with the path of their parent. */
function fieldsOf(schema: Schema, parent: string[] = []): [string, Schema, string[]][] {
  const out: [string, Schema, string[]][] = [];
  for (const [name, child] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    const field = [...parent, name].join('.');
    out.push([field, child, parent]);
    const resolved = resolve(child);
    if (resolved.type === 'object' && resolved.properties) out.push(...fieldsOf(resolved, [...parent, name]));
  }
  return out;
}

/** A copy of `body` with the value at `path` set (or removed when undefined), parents made as needed. */
function withValue(body: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    if (!node[key] || typeof node[key] !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}
