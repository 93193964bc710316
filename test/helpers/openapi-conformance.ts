/**
 * Checks a response against the generated OpenAPI document: the status is documented
 * for the route, the documented required headers are present (and well formed), the
 * Content-Type is a documented one, and a JSON body matches the schema (ajv, JSON
 * Schema 2020-12, the dialect of OpenAPI 3.1). `call()` in fixtures.ts runs it on every
 * response, so each HTTP-level test also tests the document.
 */

import { createRequire } from 'node:module';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type formatsPlugin from 'ajv-formats';
import { ERRORS, type ErrorCode, errorStatus } from '../../contract/errors.js';
import { matchRoute } from '../../contract/router.js';
import { API_PREFIX } from '../../contract/routes.js';
import { type OpenApiDocument, openApiDocument } from '../../functions/docs/openapi-document.js';
import { errorSchemaName } from '../../functions/docs/openapi-errors.js';
import { JSON_CONTENT_TYPE } from '../../functions/middleware/responses.js';

export interface ObservedResponse {
  method: string;
  /** Path from the host root, e.g. /api/v1/deployments (a query string is ignored). */
  path: string;
  status: number;
  /** Header names in any case. */
  headers: Record<string, string | undefined>;
  /** Parsed JSON for JSON responses, else the text. */
  body: unknown;
}

// ajv-formats is CommonJS whose module object is the plugin: required, it is the same under Node and jest.
const addFormats = createRequire(import.meta.url)('ajv-formats') as typeof formatsPlugin.default;

const DOC_ID = 'https://openapi.local/openapi.json';

interface HeaderObject {
  required?: boolean;
  schema?: { type?: string; enum?: string[] };
}
interface ResponseObject {
  headers?: Record<string, HeaderObject | { $ref: string }>;
  content?: Record<string, { schema?: unknown }>;
}

interface State {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  /** By pointer, and by schema text: the same error schema recurs on many routes and is compiled once. */
  byPointer: Map<string, ValidateFunction>;
  byContent: Map<string, ValidateFunction>;
}
let state: State | undefined;

function setup(): State {
  if (state) return state;
  const doc = openApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  // The whole document is one schema resource, so `#/components/...` refs resolve in it.
  ajv.addSchema({ ...structuredClone(doc), $id: DOC_ID });
  state = { doc, ajv, byPointer: new Map(), byContent: new Map() };
  return state;
}

const pointer = (...parts: string[]) => `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

/** The ajv validator for a schema at a JSON pointer inside the document. */
export function validatorAt(ptr: string): ValidateFunction {
  const { doc, ajv, byPointer, byContent } = setup();
  let v = byPointer.get(ptr);
  if (v) return v;
  const content = JSON.stringify(resolve(doc, { $ref: ptr }));
  v = byContent.get(content) ?? ajv.compile({ $ref: `${DOC_ID}${ptr}` });
  byContent.set(content, v);
  byPointer.set(ptr, v);
  return v;
}

/**
 * Compiles every response validator now, so the first check of a route costs nothing
 * inside a test that is timing a running operation.
 */
export function compileAllValidators(): void {
  const { doc } = setup();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, { responses?: Record<string, ResponseObject> }>)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (response.content?.['application/json']?.schema)
          validatorAt(pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema'));
      }
    }
  }
}

function resolve<T>(doc: OpenApiDocument, obj: T | { $ref: string }): T {
  if (obj && typeof obj === 'object' && '$ref' in obj) {
    const parts = obj.$ref
      .replace(/^#\//, '')
      .split('/')
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    return parts.reduce<any>((node, key) => node?.[key], doc) as T;
  }
  return obj as T;
}

const show = (body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === undefined ? '(none)' : text.length > 600 ? `${text.slice(0, 600)}…` : text;
};

/** The values an enum or const failure allowed, for the message. */
const allowed = (params: Record<string, unknown> | undefined) =>
  params && 'allowedValues' in params
    ? ` (${(params.allowedValues as unknown[]).join(', ')})`
    : params && 'allowedValue' in params
      ? ` (${String(params.allowedValue)})`
      : '';

/** The problems with a response, empty when it conforms. */
export function conformanceProblems(res: ObservedResponse): string[] {
  const { doc } = setup();
  const problems: string[] = [];
  const headers = Object.fromEntries(
    Object.entries(res.headers)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  const path = res.path.split('?')[0]!;
  const contentType = headers['content-type'];
  if (!headers['x-request-id']) problems.push('the X-Request-Id header is missing');

  const match = matchRoute(res.method, path);
  if (match.kind !== 'route') {
    // Paths and methods no route takes: the catch-all answers (decision 33).
    const expected =
      match.kind === 'not-found' ? { status: 404, code: 'NOT_FOUND' as const } : { status: 405, code: 'METHOD_NOT_ALLOWED' as const };
    if (res.status !== expected.status && res.status !== 500)
      problems.push(`no route takes ${res.method} ${path}, so the status must be ${expected.status}, not ${res.status}`);
    if (match.kind === 'method-not-allowed' && res.status === 405 && !headers.allow) problems.push('a 405 must carry an Allow header');
    if (contentType !== JSON_CONTENT_TYPE) problems.push(`Content-Type is ${contentType ?? '(none)'}, expected ${JSON_CONTENT_TYPE}`);
    const v = validatorAt(pointer('components', 'schemas', errorSchemaName(expected.code)));
    if (!v(res.body))
      problems.push(`the body is not the error envelope: ${v.errors?.map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ')}`);
    return problems;
  }

  const opPath = API_PREFIX + match.route.path;
  const method = match.route.method.toLowerCase();
  const operation = (doc.paths?.[opPath] as Record<string, { responses?: Record<string, ResponseObject> }> | undefined)?.[method];
  if (!operation) return [...problems, `the document has no operation ${method.toUpperCase()} ${opPath}`];
  const responses = operation.responses ?? {};
  const response = responses[String(res.status)];
  if (!response) {
    const code = (res.body as { error?: { code?: string } } | undefined)?.error?.code;
    return [
      ...problems,
      `status ${res.status}${code ? ` (${code})` : ''} is not documented for ${method.toUpperCase()} ${opPath}; documented: ${Object.keys(responses).join(', ')}`,
    ];
  }

  for (const [name, h] of Object.entries(response.headers ?? {})) {
    const header = resolve<HeaderObject>(doc, h);
    const value = headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) problems.push(`the ${name} header is documented as required but missing`);
      continue;
    }
    if (header.schema?.type === 'integer' && !/^-?\d+$/.test(value))
      problems.push(`the ${name} header should be an integer, got "${value}"`);
    if (header.schema?.enum && !header.schema.enum.includes(value))
      problems.push(`the ${name} header should be one of ${header.schema.enum.join(', ')}, got "${value}"`);
  }

  const content = response.content ?? {};
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (!mediaType || !(mediaType in content)) {
    problems.push(
      `Content-Type ${contentType ?? '(none)'} is not documented for status ${res.status}; documented: ${Object.keys(content).join(', ') || '(no body)'}`,
    );
  } else if (mediaType === 'application/json') {
    if (contentType !== JSON_CONTENT_TYPE) problems.push(`Content-Type is "${contentType}", expected "${JSON_CONTENT_TYPE}"`);
    const v = validatorAt(pointer('paths', opPath, method, 'responses', String(res.status), 'content', 'application/json', 'schema'));
    if (!v(res.body)) {
      problems.push(
        `the body does not match the schema: ${v.errors?.map((e) => `${e.instancePath || '(root)'} ${e.message}${allowed(e.params)}`).join('; ')}`,
      );
    }
    const code = (res.body as { error?: { code?: string } } | undefined)?.error?.code;
    if (code && Object.hasOwn(ERRORS, code) && errorStatus(code as ErrorCode) !== res.status) {
      problems.push(`error code ${code} belongs to status ${errorStatus(code as ErrorCode)}, not ${res.status}`);
    }
  } else if (typeof res.body !== 'string') {
    problems.push(`a ${mediaType} body should be text`);
  }
  return problems;
}

/** Throws, naming every problem, when a response does not conform to the document. */
export function assertConforms(res: ObservedResponse): void {
  const problems = conformanceProblems(res);
  if (problems.length === 0) return;
  throw new Error(
    `Response does not conform to the OpenAPI document: ${res.method} ${res.path} -> ${res.status}\n` +
      problems.map((p) => `  - ${p}`).join('\n') +
      `\n  body: ${show(res.body)}`,
  );
}

/**
 * A fetch that checks every response it returns (for clients under test that talk
 * to a real server). The body is read from a clone, so the caller can still read it.
 */
export function conformanceCheckingFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await inner(input, init);
    const url = new URL(typeof input === 'string' || input instanceof URL ? input.toString() : input.url);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const text = await res.clone().text();
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      headers[k] = v;
    });
    let body: unknown = text;
    if (headers['content-type']?.startsWith('application/json')) body = JSON.parse(text);
    assertConforms({ method, path: url.pathname, status: res.status, headers, body });
    return res;
  };
}
