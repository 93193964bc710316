/**
 * The typed client against the real local API server (every response also checked
 * against the OpenAPI document). The waiter's tests are in client-wait.test.ts.
 */
import http from 'node:http';
import { DeploymentsClient, type DeprecationNotice, ErrorResponse, NetworkError } from '../../client/index.js';
import { API_PREFIX, routes } from '../../contract/routes.js';
import { createApiServer } from '../../local/api-server.js';
import { operationReaches, readyDeployment } from '../helpers/api.js';
import { createKey } from '../helpers/fixtures.js';
import { ENV_SECRET_PREFIX } from '../helpers/log-scan.js';
import { conformanceCheckingFetch } from '../helpers/openapi-conformance.js';
import { close, listen } from '../helpers/scripted-api.js';

describe('DeploymentsClient against the local API', () => {
  let server: http.Server;
  let baseUrl: string;
  const client = (apiKey?: string) =>
    new DeploymentsClient({ baseUrl, apiKey, fetch: conformanceCheckingFetch(), validateResponses: true });

  beforeAll(async () => {
    server = createApiServer();
    baseUrl = `${await listen(server)}${API_PREFIX}`;
  });
  afterAll(() => close(server));

  it('has a method for every route, named like the route', () => {
    const api = client('x');
    for (const id of Object.keys(routes))
      expect({ id, type: typeof (api as unknown as Record<string, unknown>)[id] }).toEqual({ id, type: 'function' });
  });

  it('lists environments and describes its key, typed by the route schemas', async () => {
    const { key, record } = await createKey({ scopes: ['org:read'] });
    const api = client(key);
    const envs = await api.listEnvironments({ per_page: 10 });
    expect(envs.items.map((e) => e.id)).toEqual(['env_default']);
    expect(envs.pagination).toEqual({ page: 1, per_page: 10, total: 1, pages: 1 });
    expect((await api.getEnvironment('env_default')).is_default).toBe(true);
    const me = await api.getKey();
    expect(me).toEqual(expect.objectContaining({ id: record.id, scopes: ['org:read'] }));
  });

  it('reads the OpenAPI document and the docs page without a key', async () => {
    const api = client();
    expect((await api.getOpenApi()).openapi).toBe('3.1.0');
    expect(await api.getDocs()).toContain('<div id="swagger-ui">');
    expect(await api.getDocsAsset('docs-init.js')).toContain('SwaggerUIBundle');
  });

  it('throws ErrorResponse with the envelope fields', async () => {
    const bad = await client('svc_sk_live_notarealkey')
      .listEnvironments()
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ErrorResponse);
    expect(bad).toMatchObject({ status: 401, code: 'INVALID_API_KEY', requestId: expect.stringMatching(/^req_/) });

    const { key } = await createKey({ scopes: ['operations:read'] });
    const scoped = await client(key)
      .listEnvironments()
      .catch((e: unknown) => e);
    expect(scoped).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE', message: expect.stringContaining('Required: org:read') });

    const { key: full } = await createKey();
    const missing = await client(full)
      .getEnvironment('env_nope')
      .catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'ENVIRONMENT_NOT_FOUND' });
    const invalid = await client(full)
      .listEnvironments({ per_page: 1000 })
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: [expect.objectContaining({ field: 'per_page' })] });
  });

  it('refuses to send a keyed request without a key, and reports a refused connection as NetworkError', async () => {
    await expect(client().listEnvironments()).rejects.toThrow(/needs an API key/);
    const closed = http.createServer();
    const url = await listen(closed);
    await close(closed);
    const err = await new DeploymentsClient({ baseUrl: `${url}${API_PREFIX}`, apiKey: 'k' }).listEnvironments().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NetworkError);
    expect((err as Error).message).toContain(`GET ${url}${API_PREFIX}/environments failed`);
  });

  it('waits on an operation through the wait route, refusing a bad timeout or phase with 400 INVALID_REQUEST', async () => {
    const { key } = await createKey();
    const api = client(key);
    const { operation_id } = await api.createDeployment({ app_type: 'airflow' });
    const seen = await api.waitOperation(operation_id, { timeout: 1 });
    expect(seen).toMatchObject({ id: operation_id, type: 'deployment.create' });
    for (const [query, field] of [
      [{ timeout: 21 }, 'timeout'],
      [{ timeout: 0 }, 'timeout'],
      [{ phase: 'sleeping' }, 'phase'],
    ] as const) {
      const bad = await api.waitOperation(operation_id, query).catch((e: unknown) => e);
      expect(bad).toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: [expect.objectContaining({ field })] });
    }
  });

  it('tells onDeprecation of every answer that carries Deprecation, errors included, and of no other', async () => {
    const { key } = await createKey({ scopes: ['operations:read'] });
    const notices: DeprecationNotice[] = [];
    const api = new DeploymentsClient({ baseUrl, apiKey: key, fetch: conformanceCheckingFetch(), onDeprecation: (n) => notices.push(n) });
    const id = '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10';
    await api.listOperations({ resource_id: id });
    expect(notices).toEqual([]);
    await api.listOperations({ resource_id: `dep_${id}` });
    await expect(api.listEvents({ resource_id: `dep_${id}`, per_page: 0 } as never)).rejects.toThrow(ErrorResponse);
    expect(notices).toEqual([
      {
        route: 'GET /operations',
        deprecatedAt: new Date('2026-11-24T00:00:00Z'),
        sunset: new Date('2027-11-24T00:00:00Z'),
        link: `${new URL(baseUrl).origin}/api/v1/docs#deprecations`,
      },
      expect.objectContaining({ route: 'GET /events', deprecatedAt: new Date('2026-11-24T00:00:00Z') }),
    ]);
  });

  it('warns once per feature per process by default, with process.emitWarning', async () => {
    const { key } = await createKey({ scopes: ['operations:read'] });
    const warn = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const api = client(key);
      for (let i = 0; i < 3; i++) await client(key).listOperations({ resource_id: 'dep_3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10' });
      await api.listOperations({});
      expect(warn.mock.calls).toEqual([
        [
          `GET /operations used a feature deprecated since 2026-11-24 that may stop working after 2027-11-24; see ${new URL(baseUrl).origin}/api/v1/docs#deprecations`,
          { type: 'DeprecationWarning', code: 'DEPLOYMENTS_API_DEPRECATION' },
        ],
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('updates with a merge patch: a dry run, If-Match, the accepted operation, then no change; revisions and rollback', async () => {
    const { key } = await createKey();
    const sent: { method: string; url: string; headers: Headers }[] = [];
    const checked = conformanceCheckingFetch();
    const api = new DeploymentsClient({
      baseUrl,
      apiKey: key,
      validateResponses: true,
      fetch: (input, init) => {
        sent.push({ method: init?.method ?? 'GET', url: String(input), headers: new Headers(init?.headers) });
        return checked(input, init);
      },
    });
    const d = await readyDeployment(key, { app_type: 'airflow', config: { app_version: '2.11.0', env: { OLD: { value: 'x' } } } });
    const patch = { config: { size: 'large' as const, env: { OLD: null, TOKEN: { value: `${ENV_SECRET_PREFIX}client`, secret: true } } } };

    const dry = await api.updateDeployment(d.id, patch, { dryRun: true, ifMatch: 1 });
    expect(dry).toEqual({
      outcome: 'dry_run',
      deployment: expect.objectContaining({ id: d.id, revision: 2, config: expect.objectContaining({ size: 'large' }) }),
      changes: [
        { field: 'config.env.OLD', from: { value: 'x', secret: false }, to: null },
        { field: 'config.env.TOKEN', from: null, to: { secret: true } },
        { field: 'config.size', from: 'small', to: 'large' },
      ],
    });
    const last = sent.at(-1)!;
    expect(last.method).toBe('PATCH');
    expect(last.url).toBe(`${baseUrl}/deployments/${d.id}?dry_run=true`);
    expect(last.headers.get('content-type')).toBe('application/merge-patch+json');
    expect(last.headers.get('if-match')).toBe('"1"');
    expect(JSON.stringify(dry)).not.toContain(ENV_SECRET_PREFIX);

    const stale = await api.updateDeployment(d.id, patch, { ifMatch: 2 }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ status: 412, code: 'PRECONDITION_FAILED' });

    const applied = await api.updateDeployment(d.id, patch, { ifMatch: 1, idempotencyKey: `upd-${d.id}` });
    if (applied.outcome !== 'accepted') throw new Error(`expected accepted, got ${applied.outcome}`);
    expect(applied.accepted).toMatchObject({ deployment_id: d.id, operation_id: expect.stringMatching(/^op_/) });
    expect(sent.at(-1)!.headers.get('idempotency-key')).toBe(`upd-${d.id}`);
    expect(sent.at(-1)!.url).toBe(`${baseUrl}/deployments/${d.id}`);
    await operationReaches(key, applied.accepted.operation_id, ['succeeded']);

    const again = await api.updateDeployment(d.id, patch, { ifMatch: '*' });
    expect(again).toEqual({ outcome: 'unchanged', deployment: expect.objectContaining({ id: d.id, revision: 2 }) });
    expect(sent.at(-1)!.headers.get('if-match')).toBe('*');

    const revisions = await api.listRevisions(d.id, { page: 1, per_page: 1 });
    expect(revisions.items.map((r) => [r.revision, r.config.size])).toEqual([[2, 'large']]);
    expect(revisions.pagination).toEqual({ page: 1, per_page: 1, total: 2, pages: 2 });
    expect(await api.getRevision(d.id, 1)).toMatchObject({ revision: 1, rollback_of: null, config: { size: 'small' } });
    await expect(api.getRevision(d.id, 9)).rejects.toMatchObject({ status: 404, code: 'REVISION_NOT_FOUND' });

    const back = await api.rollbackDeployment(d.id, 1, { dryRun: true });
    expect(back).toMatchObject({
      outcome: 'dry_run',
      changes: expect.arrayContaining([{ field: 'config.size', from: 'large', to: 'small' }]),
    });
    expect(sent.at(-1)!.headers.get('content-type')).toBe('application/json');
    const rolled = await api.rollbackDeployment(d.id, 1, { ifMatch: 2 });
    if (rolled.outcome !== 'accepted') throw new Error(`expected accepted, got ${rolled.outcome}`);
    await operationReaches(key, rolled.accepted.operation_id, ['succeeded']);
    expect(await api.getRevision(d.id, 3)).toMatchObject({
      revision: 3,
      rollback_of: 1,
      config: { size: 'small', env: { OLD: { value: 'x' } } },
    });
  });

  it('encodes path parameters', () => {
    expect(client('k').urlOf('getDeployment', { deployment_id: 'a/b?c' })).toBe(`${baseUrl}/deployments/a%2Fb%3Fc`);
    expect(client('k').urlOf('listOperations', undefined, { status: 'running', page: 2, type: undefined })).toBe(
      `${baseUrl}/operations?status=running&page=2`,
    );
  });
});

describe('DeploymentsClient keeps its key to the API', () => {
  let api: http.Server;
  let other: http.Server;
  let apiUrl: string;
  const seenByOther: http.IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    // Another origin (another port), which must never see the key.
    other = http.createServer((req, res) => {
      seenByOther.push(req.headers);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"data":{"items":[]}}');
    });
    const otherUrl = await listen(other);
    api = http.createServer((req, res) => res.writeHead(307, { Location: `${otherUrl}${req.url}` }).end());
    apiUrl = `${await listen(api)}${API_PREFIX}`;
  });
  afterAll(async () => {
    await close(api);
    await close(other);
  });

  it('reports a redirect to another origin as an error and never follows it with X-API-Key', async () => {
    // What an ordinary fetch does with the same answer: it follows, key and all.
    await fetch(`${apiUrl}/environments`, { headers: { 'X-API-Key': 'svc_sk_live_followed' } });
    expect(seenByOther.map((h) => h['x-api-key'])).toEqual(['svc_sk_live_followed']);
    seenByOther.length = 0;

    const err = await new DeploymentsClient({ baseUrl: apiUrl, apiKey: 'svc_sk_live_secret' }).listEnvironments().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ErrorResponse);
    expect(err).toMatchObject({ status: 307, code: 'UNEXPECTED_RESPONSE', message: expect.stringContaining('redirect') });
    expect(seenByOther).toEqual([]);
  });

  it.each([
    'http://api.example.com/api/v1',
    'http://10.0.0.5:3000/api/v1',
    'ftp://example.com/api/v1',
    'not a url',
    'https://user:pw@api.example.com/api/v1',
  ])('refuses the base URL %s (the key would cross a network in clear, or go astray)', (baseUrl) => {
    expect(() => new DeploymentsClient({ baseUrl, apiKey: 'k' })).toThrow(TypeError);
  });

  it.each([
    'https://api.example.com/api/v1',
    'http://localhost:3000/api/v1',
    'http://127.0.0.1:3000/api/v1',
    'http://[::1]:3000/api/v1',
    'http://api.localhost/api/v1',
  ])('accepts %s (https, or plain http on this machine)', (baseUrl) => {
    expect(new DeploymentsClient({ baseUrl: `${baseUrl}/`, apiKey: 'k' }).baseUrl).toBe(baseUrl);
  });
});
