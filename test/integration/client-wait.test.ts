/**
 * waitForOperation: against the real local API (the wait route and the workflow, real
 * time, every answer checked against the OpenAPI document), and against a scripted server
 * in virtual time for phase changes, long waits, dropped connections, backoff, the
 * fallback to polling and deadlines: no real waiting and no assertions on wall-clock time.
 */
import type http from 'node:http';
import {
  DeploymentsClient,
  ErrorResponse,
  OperationTimeoutError,
  type ProgressInfo,
  realClock,
  type WaitOptions,
  waitForOperation,
} from '../../client/index.js';
import { API_PREFIX } from '../../contract/routes.js';
import { createKey } from '../helpers/fixtures.js';
import { localApi } from '../helpers/local-api.js';
import { conformanceCheckingFetch } from '../helpers/openapi-conformance.js';
import {
  close,
  DEP_ID,
  error,
  held,
  listen,
  OP_ID,
  ok,
  operation,
  queryOf,
  routedScript,
  type Script,
  type Seen,
  type Step,
  scriptedServer,
  virtualClock,
} from '../helpers/scripted-api.js';
import { eventually } from '../helpers/wait.js';

// Phases long enough (the simulated platform's jobs) for each to be seen on its own; read at the first handler call.
const phaseDelay = process.env.PHASE_DELAY_MS;
process.env.PHASE_DELAY_MS = '1500';
afterAll(() => {
  if (phaseDelay === undefined) delete process.env.PHASE_DELAY_MS;
  else process.env.PHASE_DELAY_MS = phaseDelay;
});

const WAIT_PATH = `${API_PREFIX}/operations/${OP_ID}/wait`;
const GET_PATH = `${API_PREFIX}/operations/${OP_ID}`;
const pathOf = (s: Seen) => s.path.split('?')[0];

describe('waitForOperation against the local API', () => {
  const local = localApi();

  it('reports each phase of a create once, in order, as it happens, through the wait route', async () => {
    const { key } = await createKey();
    const sent: string[] = [];
    const checked = conformanceCheckingFetch();
    const api = new DeploymentsClient({
      baseUrl: local.baseUrl,
      apiKey: key,
      validateResponses: true,
      fetch: (input, init) => {
        sent.push(new URL(String(input)).pathname);
        return checked(input, init);
      },
    });
    const { operation_id } = await api.createDeployment({ app_type: 'airflow' });
    const changes: string[] = [];
    const vias: ProgressInfo['via'][] = [];
    const op = await waitForOperation(api, operation_id, {
      onProgress: (o, info) => {
        vias.push(info.via);
        if (info.changed) changes.push(`${o.status}/${o.progress.phase}`);
      },
    });
    expect(op.status).toBe('succeeded');
    const expected = ['queued/queued', 'running/provisioning_db', 'running/provisioning_infrastructure', 'succeeded/ready'];
    // The first look may come after the operation left `queued`; every later phase is seen, in order.
    expect(changes).toEqual(expected.slice(expected.length - changes.length));
    expect(changes.slice(-3)).toEqual(expected.slice(1));
    // One GET, then only the wait route: no polling.
    const waits = sent.filter((p) => p.endsWith(`/operations/${operation_id}/wait`)).length;
    expect(sent.filter((p) => p.includes('/operations/'))).toEqual([
      `${API_PREFIX}/operations/${operation_id}`,
      ...Array(waits).fill(`${API_PREFIX}/operations/${operation_id}/wait`),
    ]);
    expect(vias[0]).toBe('get');
    expect(vias.slice(1).every((v) => v === 'wait')).toBe(true);
  });

  it('answers the wait route at once for a terminal operation, and 404 OPERATION_NOT_FOUND for an unknown one', async () => {
    const { key } = await createKey();
    const api = new DeploymentsClient({ baseUrl: local.baseUrl, apiKey: key, validateResponses: true, fetch: conformanceCheckingFetch() });
    const { operation_id } = await api.createDeployment({ app_type: 'superset' });
    const done = await waitForOperation(api, operation_id);
    expect(done.status).toBe('succeeded');
    expect(await api.waitOperation(operation_id, { phase: 'queued', timeout: 20 })).toEqual(done);
    const unknown = 'op_00000000-0000-4000-8000-000000000000';
    await expect(api.waitOperation(unknown)).rejects.toMatchObject({ status: 404, code: 'OPERATION_NOT_FOUND' });
    await expect(waitForOperation(api, unknown)).rejects.toMatchObject({ status: 404, code: 'OPERATION_NOT_FOUND' });
  });
});

// ---- a scripted server, virtual time -----------------------------------------------

describe('waitForOperation against a scripted server', () => {
  const servers: http.Server[] = [];
  afterAll(async () => {
    for (const s of servers) await close(s);
  });
  async function setup(script: Script, repeatLast = false) {
    const clock = virtualClock();
    const { server, seen } = scriptedServer(clock, script, repeatLast);
    servers.push(server);
    const api = new DeploymentsClient({
      baseUrl: `${await listen(server)}${API_PREFIX}`,
      apiKey: 'svc_sk_live_test',
      validateResponses: true,
    });
    const start = clock.now();
    const progress: string[] = [];
    const retries: string[] = [];
    const wait = (opts: WaitOptions = {}) =>
      waitForOperation(api, OP_ID, {
        clock,
        random: () => 1,
        onProgress: (o, info) =>
          progress.push(`${info.elapsedMs} ${info.via} ${o.status}/${o.progress.phase}${info.changed ? '' : ' (unchanged)'}`),
        onRetry: (r) => retries.push(`${r.error instanceof ErrorResponse ? r.error.status : r.error.name} +${r.delayMs}`),
        ...opts,
      });
    /** When each request came (ms after the start), and what it asked for. */
    const requests = () =>
      seen.map((s) => {
        const q = queryOf(s);
        return `${s.at - start} ${pathOf(s) === WAIT_PATH ? `wait ${q.phase} ${q.timeout}` : pathOf(s) === GET_PATH ? 'get' : s.path}`;
      });
    return { clock, seen, api, start, progress, retries, wait, requests };
  }

  it('asks for the state once, then waits on each phase, reporting each change as it comes', async () => {
    const t = await setup([
      ok(operation('queued', 'queued')),
      held(operation('running', 'provisioning_db'), 4000),
      held(operation('running', 'provisioning_db'), 20_000), // nothing new for 20 s
      held(operation('running', 'provisioning_infrastructure'), 7000),
      held(operation('succeeded', 'ready'), 12_000),
    ]);
    const op = await t.wait();
    expect(op).toEqual(operation('succeeded', 'ready'));
    expect(t.requests()).toEqual([
      '0 get',
      '1000 wait queued 20', // never two requests less than a second apart
      '5000 wait provisioning_db 20', // at once after a change
      '25000 wait provisioning_db 20', // and after a wait with nothing new
      '32000 wait provisioning_infrastructure 20',
    ]);
    expect(t.progress).toEqual([
      '0 get queued/queued',
      '5000 wait running/provisioning_db',
      '25000 wait running/provisioning_db (unchanged)',
      '32000 wait running/provisioning_infrastructure',
      '44000 wait succeeded/ready',
    ]);
    expect(t.seen.every((s) => s.method === 'GET' && s.key === 'svc_sk_live_test')).toBe(true);
    expect(t.retries).toEqual([]);
  });

  it('has no deadline by default: a wait of more than three hours ends when the operation does', async () => {
    let waits = 0;
    const t = await setup((req) => {
      if (pathOf(req) === GET_PATH) return ok(operation('running', 'provisioning_infrastructure'));
      waits++;
      return waits <= 600 ? held(operation('running', 'provisioning_infrastructure'), 20_000) : held(operation('succeeded', 'ready'), 5000);
    });
    const op = await t.wait();
    expect(op.status).toBe('succeeded');
    expect(t.clock.now() - t.start).toBe(1000 + 600 * 20_000 + 5000); // 3h20m06s
    expect(t.seen).toHaveLength(1 + 601);
    expect(t.progress.filter((p) => !p.endsWith('(unchanged)'))).toEqual([
      '0 get running/provisioning_infrastructure',
      `${1000 + 600 * 20_000 + 5000} wait succeeded/ready`,
    ]);
  });

  it('waits again after a dropped connection, a 5xx and a 429, on the same phase', async () => {
    const t = await setup([
      ok(operation('running', 'provisioning_db')),
      held(operation('running', 'provisioning_db'), 20_000),
      'drop',
      error(503, 'INTERNAL_ERROR'),
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '7' }),
      held(operation('running', 'provisioning_infrastructure'), 3000),
      held(operation('succeeded', 'ready'), 2000),
    ]);
    const op = await t.wait();
    expect(op.status).toBe('succeeded');
    expect(t.requests()).toEqual([
      '0 get',
      '1000 wait provisioning_db 20',
      '21000 wait provisioning_db 20', // dropped
      '22000 wait provisioning_db 20', // after 1 s: 503
      '24000 wait provisioning_db 20', // after 2 s: 429
      '31000 wait provisioning_db 20', // after Retry-After
      '34000 wait provisioning_infrastructure 20',
    ]);
    expect(t.retries).toEqual(['NetworkError +1000', '503 +2000', '429 +7000']);
    expect(t.progress.at(-1)).toBe('36000 wait succeeded/ready');
  });

  it('backs off exponentially with jitter up to 30 s on repeated failures', async () => {
    const t = await setup([
      ok(operation('running', 'provisioning_db')),
      ...Array.from({ length: 8 }, (_, i): Step => (i % 2 ? 'drop' : error(500, 'INTERNAL_ERROR'))),
      held(operation('canceled', 'provisioning_db'), 1000),
    ]);
    const op = await t.wait({ random: () => 0.5 });
    expect(op.status).toBe('canceled');
    const at = t.seen.map((s) => s.at - t.start).slice(1);
    // 1 s × 2^(n-1), at most 30 s, of which between half and all (here three quarters); never under a second apart.
    expect(at.slice(1).map((x, i) => x - at[i]!)).toEqual([1000, 1500, 3000, 6000, 12_000, 22_500, 22_500, 22_500]);
    expect(t.seen.slice(1).every((s) => pathOf(s) === WAIT_PATH && queryOf(s).phase === 'provisioning_db')).toBe(true);
  });

  it('falls back to polling, for the rest of the wait, when the server has no wait route (404 NOT_FOUND)', async () => {
    const fallbacks: string[] = [];
    const t = await setup(
      routedScript({
        get: [
          ok(operation('running', 'provisioning_db')),
          ok(operation('running', 'provisioning_db')),
          { status: 202, body: { data: operation('running', 'provisioning_infrastructure') }, headers: { 'Retry-After': '9' } },
          error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '4' }),
          ok(operation('running', 'provisioning_infrastructure')),
          ok(operation('running', 'provisioning_infrastructure')),
          ok(operation('running', 'provisioning_infrastructure')),
          ok(operation('succeeded', 'ready')),
        ],
        wait: [error(404, 'NOT_FOUND')],
      }),
    );
    const op = await t.wait({ onFallback: (f) => fallbacks.push(`${f.error.status} ${f.error.code} +${f.delayMs}`) });
    expect(op.status).toBe('succeeded');
    expect(t.requests()).toEqual([
      '0 get',
      '1000 wait provisioning_db 20', // 404 NOT_FOUND: no such route
      '3000 get', // polling: 2 s...
      '6000 get', // ...3 s (a 202 with Retry-After: 9)
      '15000 get', // 429, Retry-After: 4
      '19000 get', // 4.5 s would have been next; now 5 s at most
      '24000 get',
      '29000 get',
      '34000 get',
    ]);
    expect(fallbacks).toEqual(['404 NOT_FOUND +2000']);
    expect(t.retries).toEqual(['429 +4000']);
    expect(t.progress.filter((p) => !p.endsWith('(unchanged)'))).toEqual([
      '0 get running/provisioning_db',
      '6000 get running/provisioning_infrastructure',
      '34000 get succeeded/ready',
    ]);
  });

  it('falls back on 405 too, but stops at once on 404 OPERATION_NOT_FOUND and other answers a retry cannot fix', async () => {
    const methodless = await setup(
      routedScript({
        get: [ok(operation('running', 'syncing_dags')), ok(operation('succeeded', 'synced'))],
        wait: [error(405, 'METHOD_NOT_ALLOWED')],
      }),
    );
    expect((await methodless.wait()).status).toBe('succeeded');
    expect(methodless.requests()).toEqual(['0 get', '1000 wait syncing_dags 20', '3000 get']);

    const gone = await setup([ok(operation('running', 'syncing_dags')), error(404, 'OPERATION_NOT_FOUND')]);
    await expect(gone.wait()).rejects.toMatchObject({ status: 404, code: 'OPERATION_NOT_FOUND' });
    expect(gone.seen).toHaveLength(2);

    const denied = await setup([ok(operation('running', 'syncing_dags')), error(403, 'INSUFFICIENT_SCOPE')]);
    await expect(denied.wait()).rejects.toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    expect(denied.seen).toHaveLength(2);
  });

  it('never sends two requests less than a second apart, even when the wait route answers at once', async () => {
    const t = await setup(
      [
        ok(operation('running', 'provisioning_db')),
        ok(operation('running', 'provisioning_db')),
        ok(operation('failed', 'provisioning_db')),
      ],
      false,
    );
    expect((await t.wait()).status).toBe('failed');
    expect(t.requests()).toEqual(['0 get', '1000 wait provisioning_db 20', '2000 wait provisioning_db 20']);
  });

  it('with timeoutMs, holds no wait past the deadline, looks once more at it, then gives up', async () => {
    const t = await setup((req) =>
      pathOf(req) === GET_PATH
        ? ok(operation('running', 'provisioning_infrastructure'))
        : held(operation('running', 'provisioning_infrastructure'), Number(queryOf(req).timeout) * 1000),
    );
    const err = await t.wait({ timeoutMs: 50_400 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OperationTimeoutError);
    expect((err as OperationTimeoutError).message).toBe(
      `Gave up waiting for operation ${OP_ID} after 50s. Last seen: running, phase provisioning_infrastructure. It may still finish; check it with GET /api/v1/operations/${OP_ID}.`,
    );
    expect(t.clock.now() - t.start).toBe(50_400);
    expect(t.requests()).toEqual([
      '0 get',
      '1000 wait provisioning_infrastructure 20',
      '21000 wait provisioning_infrastructure 20',
      '41000 wait provisioning_infrastructure 9', // 9.4 s left: 9 whole seconds
      '50000 get', // less than a second left: a plain look
    ]);
  });

  it('stops when its signal is aborted, also while a wait is held', async () => {
    const t = await setup([ok(operation('running', 'provisioning_db')), 'hang']);
    const controller = new AbortController();
    const waiting = t.wait({ clock: realClock, signal: controller.signal });
    await eventually(async () => t.seen.length === 2, 'the held wait request');
    controller.abort(new Error('stopped by test'));
    await expect(waiting).rejects.toThrow('stopped by test');
    expect(pathOf(t.seen[1]!)).toBe(WAIT_PATH);
  });
});

// ---- without the wait route (useWaitRoute: false): polling only -----------------------

describe('waitForOperation polling only', () => {
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
      useWaitRoute: false,
      random: () => 1,
      onProgress: (o, info) => progress.push(`${info.elapsedMs} ${o.status}/${o.progress.phase}${info.changed ? '' : ' (unchanged)'}`),
      onRetry: (r) => retries.push(`${r.error.name}:${r.error instanceof ErrorResponse ? r.error.status : 'network'} +${r.delayMs}`),
    });
    expect(op.status).toBe('succeeded');
    expect(op.result).toEqual({ url: `https://airflow.${DEP_ID}.apps.example.com` });
    const at = seen.map((s) => s.at - start);
    expect(at).toEqual([
      2000, // first poll after 2 s
      9000, // 429: Retry-After 7 s
      10000, // 503: 1 s
      12000, // dropped connection: 2 s (exponential)
      12000 + 3000, // after the first answer (queued) the interval grows: 3 s...
      15000 + 4500, // ...4.5 s
      19500 + 5000, // ...5 s at most
      24500 + 5000,
    ]);
    expect(seen.every((s) => s.path === GET_PATH && s.key === 'svc_sk_live_test')).toBe(true);
    expect(retries).toEqual(['ErrorResponse:429 +7000', 'ErrorResponse:503 +1000', 'NetworkError:network +2000']);
    expect(progress).toEqual([
      '12000 queued/queued',
      '15000 running/provisioning_db',
      '19500 running/provisioning_infrastructure',
      '24500 running/provisioning_infrastructure (unchanged)',
      '29500 succeeded/ready',
    ]);
  });

  it('never sends more than one request per second, even when told to retry at once', async () => {
    const { clock, seen, api } = await setup([
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '0' }),
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '0' }),
      ok(operation('failed', 'provisioning_db')),
    ]);
    const start = clock.now();
    const op = await waitForOperation(api, OP_ID, { clock, useWaitRoute: false, initialDelayMs: 0 });
    expect(op.status).toBe('failed');
    expect(seen.map((s) => s.at - start)).toEqual([0, 1000, 2000]);
  });

  it('gives up after timeoutMs with the last operation seen, with a last look at the deadline when there is room', async () => {
    const short = await setup([ok(operation('running', 'syncing_dags'))], true);
    await expect(waitForOperation(short.api, OP_ID, { clock: short.clock, useWaitRoute: false, timeoutMs: 10_000 })).rejects.toThrow(
      /after 10s\. Last seen: running, phase syncing_dags/,
    );
    const lastLook = await setup([ok(operation('running', 'syncing_dags'))], true);
    const start = lastLook.clock.now();
    await expect(waitForOperation(lastLook.api, OP_ID, { clock: lastLook.clock, useWaitRoute: false, timeoutMs: 12_000 })).rejects.toThrow(
      /after 12s/,
    );
    expect(lastLook.seen.map((s) => s.at - start)).toEqual([2000, 5000, 9500, 12000]);
  });
});
