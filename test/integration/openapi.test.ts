import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { apiError, ERROR_CODES, type ErrorCode, errorStatus } from '../../contract/errors.js';
import { API_PREFIX, type Route, routeList, routes } from '../../contract/routes.js';
import { EVENT_TYPES } from '../../contract/vocabulary.js';
import { errorMeaning, exampleMessage } from '../../functions/docs/error-meanings.js';
import { openApiDocument, openApiJson } from '../../functions/docs/openapi-document.js';
import { errorCodesOf, errorSchemaName } from '../../functions/docs/openapi-errors.js';
import { call, createKey } from '../helpers/fixtures.js';
import { conformanceProblems, validatorAt } from '../helpers/openapi-conformance.js';

type Operation = {
  operationId: string;
  security: Record<string, string[]>[];
  'x-required-scopes'?: string[];
  parameters?: ({ name: string; in: string; schema?: Record<string, unknown> } | { $ref: string })[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<
    string,
    {
      headers?: Record<string, { $ref: string }>;
      content?: Record<string, { example?: unknown; examples?: Record<string, { summary?: string; value: unknown }> }>;
    }
  >;
};

const doc = openApiDocument();
const opOf = (route: Route) =>
  (doc.paths as Record<string, Record<string, Operation>>)[API_PREFIX + route.path]?.[route.method.toLowerCase()];
const ptr = (...parts: string[]) => `#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', () => {
    // The validator is ESM-only, so it runs in its own Node process.
    const script = `
      import { Validator } from '@seriousme/openapi-schema-validator';
      let text = '';
      for await (const chunk of process.stdin) text += chunk;
      const validator = new Validator();
      const result = await validator.validate(JSON.parse(text));
      console.log(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      input: openApiJson(),
      encoding: 'utf8',
      cwd: process.cwd(),
    });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { valid: boolean; version: string; errors?: unknown };
    expect(result).toEqual({ valid: true, version: '3.1' });
  });

  it('describes every route of the route table, with its scopes and every status it can answer', () => {
    for (const [id, route] of Object.entries(routes) as [string, Route][]) {
      const op = opOf(route);
      expect({ id, op: op?.operationId }).toEqual({ id, op: id });
      const successes = [route.success.status, ...(route.success.or ? [route.success.or.status] : [])].map(String);
      const statuses = [...successes, ...new Set(errorCodesOf(route).map((c) => String(errorStatus(c))))];
      expect(Object.keys(op!.responses).sort()).toEqual([...new Set(statuses)].sort());
      if (route.access === 'public') expect(op!.security).toEqual([]);
      else if (route.access === 'key') expect(op!.security).toEqual([{ ApiKeyAuth: [] }]);
      else {
        expect(op!.security).toEqual(route.access.map((scope) => ({ ApiKeyAuth: [scope] })));
        expect(op!['x-required-scopes']).toEqual([...route.access]);
        expect(op!.responses['403']).toBeDefined();
      }
      if (route.access !== 'public') {
        for (const status of ['401', '429', '500']) expect({ id, status, has: !!op!.responses[status] }).toEqual({ id, status, has: true });
        expect(Object.keys(op!.responses['429']!.headers!)).toEqual(
          expect.arrayContaining(['Retry-After', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
        );
        expect(Object.keys(op!.responses[String(route.success.status)]!.headers!)).toEqual(
          expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
        );
      }
      if (route.success.status === 202)
        expect(Object.keys(op!.responses['202']!.headers!)).toEqual(expect.arrayContaining(['Location', 'Retry-After']));
      const params = op!.parameters ?? [];
      for (const name of Object.keys(route.params?.shape ?? {}))
        expect(params).toContainEqual(expect.objectContaining({ name, in: 'path' }));
      if (route.method === 'POST') expect(params).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      if (route.body) expect(op!.requestBody?.content['application/json']).toBeDefined();
    }
    // Nothing in the document that is not in the route table.
    const documented = Object.entries(doc.paths ?? {}).flatMap(([p, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(documented.sort()).toEqual(routeList.map((r) => `${r.method} ${API_PREFIX}${r.path}`).sort());
  });

  it('documents the X-API-Key scheme, paging bounds and the error map', () => {
    expect(doc.components?.securitySchemes?.ApiKeyAuth).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    );
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const list = opOf(routes.listDeployments)!.parameters!;
    expect(list).toContainEqual(
      expect.objectContaining({
        name: 'per_page',
        in: 'query',
        schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 50 },
      }),
    );
    expect(list).toContainEqual(
      expect.objectContaining({ name: 'page', in: 'query', schema: expect.objectContaining({ type: 'integer', minimum: 1, default: 1 }) }),
    );
    const errors = opOf(routes.createDeployment)!.responses;
    // Each code has its schema; a status several codes share is the anyOf of theirs.
    const codeOf = new Map(ERROR_CODES.map((c) => [`#/components/schemas/${errorSchemaName(c)}`, c]));
    const codesAt = (status: string) => {
      const { schema } = errors[status]!.content!['application/json']! as { schema: { $ref?: string; anyOf?: { $ref: string }[] } };
      return (schema.anyOf ?? [schema]).map((s) => codeOf.get(s.$ref!));
    };
    expect([...codesAt('401')].sort()).toEqual(['API_KEY_EXPIRED', 'API_KEY_REVOKED', 'INVALID_API_KEY', 'MISSING_API_KEY']);
    expect([...codesAt('409')].sort()).toEqual(['DEPLOYMENT_NAME_TAKEN', 'IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED']);
    // IDEMPOTENCY_KEY_IN_USE sends Retry-After; the other 409s do not, so the header is optional there.
    expect(errors['409']!.headers!['Retry-After']).toEqual({ $ref: '#/components/headers/IdempotencyRetryAfter' });
    expect(doc.components?.headers?.IdempotencyRetryAfter).toEqual(expect.objectContaining({ required: false }));
    expect(codesAt('415')).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
    expect(codesAt('413')).toEqual(['PAYLOAD_TOO_LARGE']);
  });

  it('has examples that match their own schemas', () => {
    let checked = 0;
    for (const route of routeList) {
      const op = opOf(route)!;
      const base = [API_PREFIX + route.path, route.method.toLowerCase()];
      for (const [status, response] of Object.entries(op.responses)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        const v = validatorAt(ptr('paths', ...base, 'responses', status, 'content', 'application/json', 'schema'));
        const examples = [
          ...(media.example !== undefined ? [media.example] : []),
          ...Object.values(media.examples ?? {}).map((e) => e.value),
        ];
        for (const example of examples) {
          expect({ route: `${route.method} ${route.path}`, status, ok: v(example), errors: v.errors ?? null }).toEqual({
            route: `${route.method} ${route.path}`,
            status,
            ok: true,
            errors: null,
          });
          checked++;
        }
      }
      const body = op.requestBody?.content['application/json'];
      if (body?.example !== undefined) {
        const v = validatorAt(ptr('paths', ...base, 'requestBody', 'content', 'application/json', 'schema'));
        expect(v(body.example)).toBe(true);
        checked++;
      }
    }
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      for (const example of (schema as { examples?: unknown[] }).examples ?? []) {
        expect({ name, ok: validatorAt(ptr('components', 'schemas', name))(example) }).toEqual({ name, ok: true });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it("documents every code it mentions with the catalogue's meaning and the message the service sends", () => {
    const examples = new Map<ErrorCode, { summary?: string; message: string; expected: string }[]>();
    for (const item of Object.values(doc.paths ?? {}) as Record<string, Operation>[]) {
      for (const op of Object.values(item)) {
        for (const response of Object.values(op.responses)) {
          for (const example of Object.values(response.content?.['application/json']?.examples ?? {})) {
            const { error } = example.value as { error: { code: ErrorCode; message: string } };
            // A 415 names the media types the operation takes, the merge patch first for a PATCH.
            const types = Object.keys((op.requestBody as { content?: object } | undefined)?.content ?? {});
            const expected =
              error.code === 'UNSUPPORTED_MEDIA_TYPE' && types.length
                ? apiError('UNSUPPORTED_MEDIA_TYPE', { types }).message
                : exampleMessage(error.code);
            examples.set(error.code, [...(examples.get(error.code) ?? []), { summary: example.summary, message: error.message, expected }]);
          }
        }
      }
    }
    const text = JSON.stringify(doc);
    const mentioned = ERROR_CODES.filter((code) => new RegExp(`\\b${code}\\b`).test(text));
    expect(mentioned).toEqual(expect.arrayContaining(['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE', 'INTERNAL_ERROR']));
    for (const code of mentioned) {
      const found = examples.get(code) ?? [];
      expect({ code, examples: found.length > 0 }).toEqual({ code, examples: true });
      for (const { expected, ...example } of found) {
        expect({ code, ...example }).toEqual({ code, summary: errorMeaning(code), message: expected });
      }
    }
    // The PATCH's 415 names the merge patch.
    const patch = (doc.paths![`${API_PREFIX}/deployments/{deployment_id}`] as Record<string, Operation>).patch!;
    expect(JSON.stringify(patch.responses['415'])).toContain(
      'Send the request body as a JSON merge patch with Content-Type: application/merge-patch+json (or application/json).',
    );
    // Every example is of a code the document mentions (and so was checked above).
    expect(mentioned).toEqual(expect.arrayContaining([...examples.keys()]));
  });

  it('answers a PATCH in another media type with the 415 it documents, naming the merge patch', async () => {
    const { key } = await createKey();
    const res = await call('PATCH', `/deployments/${randomUUID()}`, { key, rawBody: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.body.error.message).toBe(
      'Send the request body as a JSON merge patch with Content-Type: application/merge-patch+json (or application/json).',
    );
    const post = await call('POST', '/deployments', { key, rawBody: '{}', headers: { 'Content-Type': 'text/plain' } });
    expect(post.body.error.message).toBe('Send the request body as JSON with Content-Type: application/json.');
  });

  it('describes the POST of each event type under webhooks: the Event body, the signature headers, 2xx or a retry', () => {
    const webhooks = doc.webhooks as Record<
      string,
      {
        post: {
          tags: string[];
          security: unknown[];
          parameters: { $ref: string }[];
          requestBody: { required: boolean; content: Record<string, { schema: { allOf: unknown[] }; example: unknown }> };
          responses: Record<string, { description: string }>;
        };
      }
    >;
    expect(Object.keys(webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    const headers = doc.components?.parameters as Record<string, { name: string; in: string; required: boolean; description: string }>;
    for (const [type, { post }] of Object.entries(webhooks)) {
      expect(post.tags).toEqual(['Webhooks']);
      expect(post.security).toEqual([]);
      const media = post.requestBody.content['application/json']!;
      expect(post.requestBody.required).toBe(true);
      expect(media.schema.allOf).toContainEqual({ $ref: '#/components/schemas/Event' });
      // The example is an event of this type, valid against the body schema and the Event schema itself.
      expect(media.example).toEqual(expect.objectContaining({ type }));
      expect(validatorAt(ptr('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'))(media.example)).toBe(true);
      expect(validatorAt(ptr('components', 'schemas', 'Event'))(media.example)).toBe(true);
      const named = post.parameters.map((p) => headers[p.$ref.replace('#/components/parameters/', '')]!);
      expect(named.map((h) => [h.name, h.in, h.required])).toEqual([
        ['webhook-id', 'header', true],
        ['webhook-timestamp', 'header', true],
        ['webhook-signature', 'header', true],
      ]);
      for (const h of named) expect(h.description.length).toBeGreaterThan(40);
      expect(Object.keys(post.responses).sort()).toEqual(['2XX', 'default']);
      expect(post.responses.default!.description).toMatch(/retried/);
    }
    // Another event type's body is refused: each entry narrows `type` and `data.object`.
    const created = validatorAt(ptr('webhooks', 'deployment.created', 'post', 'requestBody', 'content', 'application/json', 'schema'));
    expect(created(webhooks['operation.created']!.post.requestBody.content['application/json']!.example)).toBe(false);
    expect(doc.tags?.map((t) => t.name)).toEqual(expect.arrayContaining(['Webhooks']));
    expect(new Set(routeList.map((r) => r.tag))).toEqual(new Set(doc.tags?.map((t) => t.name)));
  });

  it('documents a 201 success (POST /webhooks) with the secret in its schema', () => {
    const created = opOf(routes.createWebhook)!.responses['201']!;
    expect(created.content?.['application/json']?.example).toEqual({
      data: expect.objectContaining({ secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) }),
    });
    expect(Object.keys(created.headers!)).toEqual(expect.arrayContaining(['X-Request-Id', 'Idempotent-Replayed']));
  });

  it('describes resource_id as a oneOf of the forms each route accepts, the dep_ form deprecated, with patterns real ids match', async () => {
    // Ids as the service makes them (core/deployments.ts, core/operations.ts: randomUUID).
    const { key } = await createKey();
    const id = randomUUID();
    const opId = `op_${randomUUID()}`;
    const formsOf = (route: Route) => {
      const p = opOf(route)!.parameters!.find((x) => 'name' in x && x.name === 'resource_id') as unknown as {
        schema: { oneOf: { pattern: string; deprecated?: true }[] };
      };
      return p.schema.oneOf;
    };
    const matching = (route: Route, value: string) => formsOf(route).filter((f) => new RegExp(f.pattern).test(value));
    for (const route of [routes.listOperations, routes.listEvents]) {
      expect(matching(route, id)).toEqual([expect.not.objectContaining({ deprecated: true })]);
      expect(matching(route, `dep_${id}`)).toEqual([expect.objectContaining({ deprecated: true })]);
      expect(matching(route, 'nothing-here')).toEqual([]);
      for (const f of formsOf(route)) expect(f.pattern).not.toMatch(/\/i?$/);
    }
    // GET /operations takes deployment ids only (its schema refuses op_<uuid>); GET /events takes operation ids too.
    expect(matching(routes.listOperations, opId)).toEqual([]);
    expect((await call('GET', `/operations?resource_id=${opId}`, { key })).status).toBe(400);
    expect(matching(routes.listEvents, opId)).toEqual([expect.not.objectContaining({ deprecated: true })]);
    expect(formsOf(routes.listEvents).filter((f) => f.deprecated)).toHaveLength(1);
  });

  it('documents Deprecation, Sunset and Link on every answer of the routes with a deprecated feature, and only there', () => {
    const names = (route: Route, status: string) => Object.keys(opOf(route)!.responses[status]!.headers ?? {});
    for (const route of [routes.listOperations, routes.listEvents])
      for (const status of Object.keys(opOf(route)!.responses))
        expect(names(route, status)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
    expect(names(routes.listDeployments, '200')).not.toContain('Deprecation');
  });

  it('is built once per process', () => {
    expect(openApiDocument()).toBe(doc);
    expect(openApiJson()).toBe(openApiJson());
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('serves the document with no key', async () => {
    const res = await call('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
    expect(res.body.openapi).toBe('3.1.0');
  });

  it('is served with a key too, and ignores it', async () => {
    const { key } = await createKey({ scopes: [] });
    const res = await call('GET', '/openapi.json', { key });
    expect(res.status).toBe(200);
  });
});

describe('the conformance check', () => {
  const good = {
    'content-type': 'application/json; charset=utf-8',
    'x-request-id': 'req_1',
    'x-ratelimit-limit': '1000',
    'x-ratelimit-remaining': '999',
    'x-ratelimit-reset': '1790000000',
  };
  const envList = {
    items: [],
    pagination: { page: 1, per_page: 50, total: 0, pages: 0 },
    links: { self: '/x', first: '/x', last: '/x', next: null, prev: null },
  };

  it('accepts a documented response', () => {
    expect(
      conformanceProblems({ method: 'GET', path: '/api/v1/environments', status: 200, headers: good, body: { data: envList } }),
    ).toEqual([]);
  });

  it('refuses an undocumented status, a missing header, a wrong body, a wrong content type and a misplaced code', () => {
    expect(conformanceProblems({ method: 'GET', path: '/api/v1/environments', status: 418, headers: good, body: {} })[0]).toMatch(
      /status 418 is not documented/,
    );
    const { 'x-ratelimit-remaining': _r, ...noRemaining } = good;
    expect(
      conformanceProblems({ method: 'GET', path: '/api/v1/environments', status: 200, headers: noRemaining, body: { data: envList } }),
    ).toEqual(['the X-RateLimit-Remaining header is documented as required but missing']);
    expect(
      conformanceProblems({
        method: 'GET',
        path: '/api/v1/environments',
        status: 200,
        headers: good,
        body: { data: { items: 'no' } },
      }).join('\n'),
    ).toMatch(/does not match the schema/);
    expect(
      conformanceProblems({
        method: 'GET',
        path: '/api/v1/environments',
        status: 200,
        headers: { ...good, 'content-type': 'application/json' },
        body: { data: envList },
      }),
    ).toEqual(['Content-Type is "application/json", expected "application/json; charset=utf-8"']);
    const notFound = { error: { code: 'DEPLOYMENT_NOT_FOUND', message: 'x', request_id: 'r' } };
    expect(
      conformanceProblems({ method: 'GET', path: '/api/v1/environments/env_x', status: 404, headers: good, body: notFound }).join('\n'),
    ).toMatch(/\/error\/code must be equal to constant \(ENVIRONMENT_NOT_FOUND\)/);
    expect(
      conformanceProblems({
        method: 'GET',
        path: '/api/v1/environments',
        status: 200,
        headers: { ...good, 'x-request-id': undefined },
        body: { data: envList },
      }),
    ).toContain('the X-Request-Id header is missing');
  });

  it('checks the catch-all answers for unknown paths and methods', async () => {
    expect((await call('GET', '/nothing-here')).status).toBe(404);
    expect((await call('PUT', '/environments')).status).toBe(405);
    expect(conformanceProblems({ method: 'GET', path: '/api/v1/nothing', status: 200, headers: good, body: {} }).join('\n')).toMatch(
      /must be 404/,
    );
  });
});
