/**
 * The typed client against the real local API server (every response also checked
 * against the OpenAPI document), and the waiter against a scripted server, in
 * virtual time: no real waiting and no assertions on wall-clock time.
 */
import http from 'node:http';
import { DeploymentsClient, ErrorResponse, NetworkError, OperationTimeoutError, waitForOperation } from '../../client/index.js';
import { API_PREFIX, routes } from '../../functions/routes.js';
import { createApiServer } from '../../infra/local/api-server.js';
import { createKey } from '../helpers/fixtures.js';
import { conformanceCheckingFetch } from '../helpers/openapi-conformance.js';
import { close, DEP_ID, error, listen, OP_ID, ok, operation, type Step, scriptedServer, virtualClock } from '../helpers/scripted-api.js';

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

  it('encodes path parameters', () => {
    expect(client('k').urlOf('getDeployment', { deployment_id: 'a/b?c' })).toBe(`${baseUrl}/deployments/a%2Fb%3Fc`);
    expect(client('k').urlOf('listOperations', undefined, { status: 'running', page: 2, type: undefined })).toBe(
      `${baseUrl}/operations?status=running&page=2`,
    );
  });
});

// ---- the waiter ------------------------------------------------------------------

describe('waitForOperation', () => {
  const servers: http.Server[] = [];
  afterAll(async () => {
    for (const s of servers) await close(s);
  });
  async function setup(steps: Step[], repeatLast = false) {
    const clock = virtualClock();
    const { server, seen } = scriptedServer(clock, steps, repeatLast);
    servers.push(server);
    const api = new DeploymentsClient({
      baseUrl: `${await listen(server)}${API_PREFIX}`,
      apiKey: 'svc_sk_live_test',
      validateResponses: true,
    });
    return { clock, seen, api };
  }

  it('polls after 2 s, honours Retry-After, backs off on 5xx and dropped connections, then grows to 5 s', async () => {
    const { clock, seen, api } = await setup([
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '7' }),
      error(503, 'INTERNAL_ERROR'),
      'drop',
      ok(operation('queued', 'queued')),
      ok(operation('running', 'provisioning_db')),
      ok(operation('running', 'provisioning_infrastructure')),
      ok(operation('running', 'provisioning_infrastructure')),
      ok(operation('succeeded', 'ready')),
    ]);
    const start = clock.now();
    const progress: string[] = [];
    const retries: string[] = [];
    const op = await waitForOperation(api, OP_ID, {
      clock,
      onProgress: (o, info) => progress.push(`${info.elapsedMs} ${o.status}/${o.progress.phase}`),
      onRetry: (r) => retries.push(`${r.error.name}:${r.error instanceof ErrorResponse ? r.error.status : 'network'} +${r.delayMs}`),
    });
    expect(op.status).toBe('succeeded');
    expect(op.result).toEqual({ url: `https://airflow.${DEP_ID}.apps.example.com` });
    const at = seen.map((s) => s.at - start);
    expect(at).toEqual([
      2000, // first poll after 2 s
      9000, // 429: Retry-After 7 s
      11000, // 503: 2 s
      15000, // dropped connection: 4 s (exponential)
      15000 + 3000, // after the first answer (queued) the interval grows: 3 s...
      18000 + 4500, // ...4.5 s
      22500 + 5000, // ...5 s at most
      27500 + 5000,
    ]);
    for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(1000);
    expect(seen.every((s) => s.path === `${API_PREFIX}/operations/${OP_ID}` && s.key === 'svc_sk_live_test')).toBe(true);
    expect(retries).toEqual(['ErrorResponse:429 +7000', 'ErrorResponse:503 +2000', 'NetworkError:network +4000']);
    expect(progress).toEqual([
      '15000 queued/queued',
      '18000 running/provisioning_db',
      '22500 running/provisioning_infrastructure',
      '27500 running/provisioning_infrastructure',
      '32500 succeeded/ready',
    ]);
  });

  it('never sends more than one request per second, even when told to retry at once', async () => {
    const { clock, seen, api } = await setup([
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '0' }),
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '0' }),
      ok(operation('failed', 'provisioning_db')),
    ]);
    const start = clock.now();
    const op = await waitForOperation(api, OP_ID, { clock, initialDelayMs: 0 });
    expect(op.status).toBe('failed');
    expect(seen.map((s) => s.at - start)).toEqual([0, 1000, 2000]);
  });

  it('backs off exponentially up to a cap on repeated server errors', async () => {
    const { clock, seen, api } = await setup([
      ...Array.from({ length: 7 }, () => error(500, 'INTERNAL_ERROR')),
      ok(operation('canceled', 'provisioning_db')),
    ]);
    const start = clock.now();
    const op = await waitForOperation(api, OP_ID, { clock, maxErrorDelayMs: 30_000 });
    expect(op.status).toBe('canceled');
    const at = seen.map((s) => s.at - start);
    expect(at.slice(1).map((t, i) => t - at[i]!)).toEqual([2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('gives up after 30 minutes by default with a clear timeout error', async () => {
    const { clock, seen, api } = await setup([ok(operation('running', 'provisioning_infrastructure'))], true);
    const start = clock.now();
    const err = await waitForOperation(api, OP_ID, { clock }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OperationTimeoutError);
    expect((err as OperationTimeoutError).message).toBe(
      `Gave up waiting for operation ${OP_ID} after 30m00s. Last seen: running, phase provisioning_infrastructure. It may still finish; check it with GET /api/v1/operations/${OP_ID}.`,
    );
    expect((err as OperationTimeoutError).lastSeen?.status).toBe('running');
    expect(clock.now() - start).toBe(30 * 60 * 1000);
    // At 2 s, 5 s, 9.5 s, then every 5 s up to 1,799.5 s; a last look at the deadline
    // would come only 0.5 s later, faster than 1 request per second, so there is none.
    expect(seen.slice(0, 4).map((s) => s.at - start)).toEqual([2000, 5000, 9500, 14500]);
    expect(seen.at(-1)!.at - start).toBe(1_799_500);
    expect(seen).toHaveLength(3 + 358);
  });

  it('takes a shorter timeout, and stops at once on an answer a retry cannot fix', async () => {
    const short = await setup([ok(operation('running', 'syncing_dags'))], true);
    await expect(waitForOperation(short.api, OP_ID, { clock: short.clock, timeoutMs: 10_000 })).rejects.toThrow(/after 10s/);
    // With room for it, a last poll at the deadline itself.
    const lastLook = await setup([ok(operation('running', 'syncing_dags'))], true);
    const start = lastLook.clock.now();
    await expect(waitForOperation(lastLook.api, OP_ID, { clock: lastLook.clock, timeoutMs: 12_000 })).rejects.toThrow(/after 12s/);
    expect(lastLook.seen.map((s) => s.at - start)).toEqual([2000, 5000, 9500, 12000]);
    const missing = await setup([error(404, 'OPERATION_NOT_FOUND')]);
    await expect(waitForOperation(missing.api, OP_ID, { clock: missing.clock })).rejects.toMatchObject({
      status: 404,
      code: 'OPERATION_NOT_FOUND',
    });
    expect(missing.seen).toHaveLength(1);
  });

  it('stops when its signal is aborted', async () => {
    const { clock, api } = await setup([ok(operation('running', 'provisioning_db'))], true);
    const controller = new AbortController();
    const err = waitForOperation(api, OP_ID, {
      clock,
      signal: controller.signal,
      onProgress: () => controller.abort(new Error('stopped by test')),
    });
    await expect(err).rejects.toThrow('stopped by test');
  });
});
