/**
 * Decision 45 against DynamoDB Local and the real ASL, on the simulated driver: a failed
 * operation's phase and retry hint, and GET /operations/{id}/logs (dense, oldest first,
 * the workflow's and the platform's lines, no secret value).
 */
import type http from 'node:http';
import { runCli } from '../../client/cli/main.js';
import { DeploymentsClient, followOperationLogs, NetworkError } from '../../client/index.js';
import { API_PREFIX } from '../../contract/routes.js';
import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import { MIN_SEARCHED_SECRET_CHARS, platformText, redact, WITHHELD } from '../../functions/core/operation-logs.js';
import type { HostingPlatform } from '../../functions/core/platform.js';
import { createApiServer } from '../../local/api-server.js';
import { createDeployment, operationReaches, readyDeployment } from '../helpers/api.js';
import { call, createKey } from '../helpers/fixtures.js';
import { conformanceCheckingFetch } from '../helpers/openapi-conformance.js';
import { close, listen } from '../helpers/scripted-api.js';
import { workflowsOn } from '../helpers/workflow-harness.js';

process.env.RATE_LIMIT_PER_MINUTE = '1000';

/** One simulated driver per SIMULATED_FAILURE setting, chosen by the test's organization. */
const drivers = {
  none: simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: '' }),
  permanent: simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: 'provisioning_infrastructure' }),
  transient: simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: 'provisioning_db:transient' }),
  held: simulatedPlatform({ phaseDelayMs: 600_000, simulatedFailure: '' }),
  slow: simulatedPlatform({ phaseDelayMs: 1500, simulatedFailure: '' }),
};
type Setting = keyof typeof drivers;
const orgSetting = new Map<string, Setting>();
const driverOf = (orgId: string) => drivers[orgSetting.get(orgId) ?? 'none'];
const orgOfHandle = (handle: string) => (JSON.parse(handle) as { orgId: string }).orgId;
const platform: HostingPlatform = {
  start: (job) => driverOf(job.target.orgId).start(job),
  check: (handle, log) => driverOf(orgOfHandle(handle)).check(handle, log),
  cancel: (handle) => driverOf(orgOfHandle(handle)).cancel(handle),
  restore: (job) => driverOf(job.orgId).restore!(job),
};
workflowsOn(platform, { retryIntervalMs: 5 });

async function keyFor(setting: Setting) {
  const made = await createKey();
  orgSetting.set(made.record.org_id, setting);
  return made.key;
}

const logs = async (key: string, opId: string, query = '') => call('GET', `/operations/${opId}/logs${query}`, { key });

async function allLines(key: string, opId: string) {
  const res = await logs(key, opId, '?per_page=100');
  expect(res.status).toBe(200);
  return res.body.data.items as { sequence: number; time: string; phase: string; level: string; message: string }[];
}

/** Sequences 1..n, times never decreasing. */
function expectDense(lines: { sequence: number; time: string }[]) {
  expect(lines.map((l) => l.sequence)).toEqual(lines.map((_, i) => i + 1));
  for (let i = 1; i < lines.length; i++) expect(lines[i]!.time >= lines[i - 1]!.time).toBe(true);
}

describe('GET /operations/{id}/logs (decision 45)', () => {
  it('lists a succeeded create oldest first: an info line for each phase entered, the platform lines in order', async () => {
    const key = await keyFor('none');
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-ok' });
    const opId = created.body.data.operation_id;
    await operationReaches(key, opId, ['succeeded']);
    const lines = await allLines(key, opId);
    expectDense(lines);
    expect(lines.map((l) => [l.phase, l.level, l.message])).toEqual([
      ['provisioning_db', 'info', 'Provisioning the database.'],
      ['provisioning_db', 'info', 'creating database instance db.t4g.small'],
      ['provisioning_db', 'info', 'waiting for the database to accept connections'],
      ['provisioning_db', 'info', 'database available after 0.0 s'],
      ['provisioning_infrastructure', 'info', 'Provisioning the application infrastructure.'],
      ['provisioning_infrastructure', 'info', 'creating load balancer and target group'],
      ['provisioning_infrastructure', 'info', 'starting 2 application containers'],
      ['provisioning_infrastructure', 'info', 'health checks passing after 0.0 s'],
      ['ready', 'info', 'The deployment is ready.'],
    ]);
  });

  it('pages in the list shape: page 2 continues page 1, links, a page past the last is empty with the true total', async () => {
    const key = await keyFor('none');
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-pages' });
    const opId = created.body.data.operation_id;
    await operationReaches(key, opId, ['succeeded']);
    const p1 = (await logs(key, opId, '?per_page=4')).body.data;
    const p2 = (await logs(key, opId, '?page=2&per_page=4')).body.data;
    const past = await logs(key, opId, '?page=9&per_page=4');
    expect(p1.pagination).toEqual({ page: 1, per_page: 4, total: 9, pages: 3 });
    expect(p1.items.map((l: { sequence: number }) => l.sequence)).toEqual([1, 2, 3, 4]);
    expect(p2.items.map((l: { sequence: number }) => l.sequence)).toEqual([5, 6, 7, 8]);
    expect(p1.links).toMatchObject({ prev: null, next: `/api/v1/operations/${opId}/logs?page=2&per_page=4` });
    expect(past.status).toBe(200);
    expect(past.body.data).toMatchObject({ items: [], pagination: { page: 9, total: 9, pages: 3 } });
    expect((await logs(key, opId, '?per_page=0')).status).toBe(400);
    expect((await logs(key, opId, '?page=x')).status).toBe(400);
  });

  it('a permanent failure: error.phase, retryable false, the log ends with an error line carrying error.message', async () => {
    const key = await keyFor('permanent');
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-perm' });
    const op = await operationReaches(key, created.body.data.operation_id, ['failed']);
    expect(op.error).toEqual({
      code: 'PROVISIONING_INFRASTRUCTURE_FAILED',
      message: expect.stringContaining('Simulated failure in phase provisioning_infrastructure'),
      phase: 'provisioning_infrastructure',
      retryable: false,
    });
    const lines = await allLines(key, op.id);
    expectDense(lines);
    expect(lines.at(-1)).toMatchObject({ level: 'error', phase: 'provisioning_infrastructure', message: op.error.message });
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warning', message: 'provisioning_infrastructure did not complete' }));
  });

  it('SIMULATED_FAILURE=<phase>:transient outlasts its retries: retryable true, a warning per try, then the error line', async () => {
    const key = await keyFor('transient');
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-transient' });
    const op = await operationReaches(key, created.body.data.operation_id, ['failed']);
    expect(op.error).toMatchObject({ code: 'PROVISIONING_DB_FAILED', phase: 'provisioning_db', retryable: true });
    const lines = await allLines(key, op.id);
    expectDense(lines);
    // The first try and the ASL's three retries of the check each say they failed transiently.
    expect(lines.filter((l) => l.message.startsWith('The platform failed transiently')).length).toBe(4);
    expect(lines.at(-1)).toMatchObject({ level: 'error', phase: 'provisioning_db', message: op.error.message });
  });

  it('a canceled operation ends with a warning line', async () => {
    const key = await keyFor('held');
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-cancel' });
    const opId = created.body.data.operation_id;
    await operationReaches(key, opId, ['running']);
    expect((await call('POST', `/operations/${opId}/cancel`, { key, body: {} })).status).toBe(200);
    const lines = await allLines(key, opId);
    expectDense(lines);
    expect(lines.at(-1)).toMatchObject({ level: 'warning', message: 'Canceled by request.' });
  });

  it('keeps secret env values out of the log of an update', async () => {
    const key = await keyFor('none');
    const d = await readyDeployment(key, { app_type: 'airflow', name: 'logs-secret' });
    const secret = 'hunter2-very-secret-value';
    const patched = await call('PATCH', `/deployments/${d.id}`, {
      key,
      body: { config: { env: { DB_PASSWORD: { value: secret, secret: true } } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(202);
    await operationReaches(key, patched.body.data.operation_id, ['succeeded']);
    const lines = await allLines(key, patched.body.data.operation_id);
    expectDense(lines);
    expect(lines.map((l) => l.phase)).toEqual(expect.arrayContaining(['applying_config', 'restarting_services', 'updated']));
    expect(JSON.stringify(lines)).not.toContain(secret);
  });

  it('never shows a short secret, its length or where it was: every platform line is withheld alike (decision 231)', async () => {
    const key = await keyFor('none');
    const messagesWith = async (secret: string) => {
      const d = await readyDeployment(key, { app_type: 'airflow' });
      const patched = await call('PATCH', `/deployments/${d.id}`, {
        key,
        body: { config: { env: { TOKEN: { value: secret, secret: true } } } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      });
      await operationReaches(key, patched.body.data.operation_id, ['succeeded']);
      const lines = await allLines(key, patched.body.data.operation_id);
      expectDense(lines);
      return lines.map((l) => `${l.phase} ${l.level} ${l.message}`);
    };
    const [a, e, ab] = [await messagesWith('a'), await messagesWith('e'), await messagesWith('ab')];
    // The review saw `configur[secret]tion [secret]pplied`: nothing of the kind.
    expect(a.join('\n')).not.toContain('[secret]');
    expect(a.filter((m) => m.endsWith(WITHHELD)).length).toBeGreaterThan(2);
    // The log is the same whichever short secret it is, and however long.
    expect(e).toEqual(a);
    expect(ab).toEqual(a);
    // The workflow's own lines stay.
    expect(a).toEqual(expect.arrayContaining([expect.stringMatching(/^applying_config info [A-Z]/)]));
  });

  it('withholds a whole text that holds a long secret, and shows one that does not (decision 231)', () => {
    const secret = 'hunter2-very-secret-value';
    expect(redact('connected with hunter2-very-secret-value as the password', [secret])).toBe(WITHHELD);
    expect(redact('configuration applied after 1.0 s', [secret])).toBe('configuration applied after 1.0 s');
    expect(redact('no secrets here', [])).toBe('no secrets here');
    // A secret shorter than the searched minimum withholds everything, whatever the text.
    const short = 'x'.repeat(MIN_SEARCHED_SECRET_CHARS - 1);
    expect(redact('nothing like it', [secret, short])).toBe(WITHHELD);
    expect(redact('nothing like it', ['x'.repeat(MIN_SEARCHED_SECRET_CHARS)])).toBe('nothing like it');
    expect(platformText(`${'y'.repeat(3000)}${secret}`, [secret])).toBe(WITHHELD);
  });

  it('unknown ids and another organization’s operation are 404 OPERATION_NOT_FOUND', async () => {
    const key = await keyFor('none');
    const other = await keyFor('none');
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-isolated' });
    const opId = created.body.data.operation_id;
    for (const [k, id] of [
      [other, opId],
      [key, 'op_00000000-0000-4000-8000-000000000000'],
      [key, 'nope'],
    ] as const) {
      const res = await logs(k, id);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('OPERATION_NOT_FOUND');
    }
  });
});

describe('following a log: the typed client and deployctl (decision 45)', () => {
  let server: http.Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createApiServer();
    baseUrl = `${await listen(server)}${API_PREFIX}`;
  });
  afterAll(() => close(server));

  it('followOperationLogs yields every line once, in order, across dropped connections, and returns the ended operation', async () => {
    const key = await keyFor('slow');
    const checked = conformanceCheckingFetch();
    let n = 0;
    // Fault injection: every third request loses its connection.
    const flaky: typeof fetch = (input, init) => (++n % 3 === 0 ? Promise.reject(new TypeError('fetch failed')) : checked(input, init));
    const api = new DeploymentsClient({ baseUrl, apiKey: key, fetch: flaky });
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-follow' });
    const opId = created.body.data.operation_id;
    const retries: unknown[] = [];
    const logs = followOperationLogs(api, opId, { perPage: 2, onRetry: (e) => retries.push(e), random: () => 0 });
    const seen: number[] = [];
    let next = await logs.next();
    while (!next.done) {
      seen.push(next.value.sequence);
      next = await logs.next();
    }
    expect(next.value.status).toBe('succeeded');
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(retries.length).toBeGreaterThan(0);
    expect(retries.every((e) => e instanceof NetworkError)).toBe(true);
    const page = await new DeploymentsClient({ baseUrl, apiKey: key, fetch: checked }).listOperationLogs(opId, { page: 2, per_page: 4 });
    expect(page.items.map((l) => l.sequence)).toEqual([5, 6, 7, 8]);
  });

  const deployctl = async (argv: string[], key: string) => {
    let stdout = '';
    let stderr = '';
    const code = await runCli(argv, {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      env: { DEPLOY_API_KEY: key, DEPLOY_API_URL: baseUrl },
      fetch: conformanceCheckingFetch(),
    });
    return { code, stdout, stderr };
  };

  it('deployctl operations logs prints the lines, --follow until the end; get and wait explain a failure', async () => {
    const key = await keyFor('permanent');
    const created = await createDeployment(key, { app_type: 'airflow', name: 'logs-cli' });
    const opId = created.body.data.operation_id;
    const waited = await deployctl(['operations', 'wait', opId], key);
    expect(waited.code).toBe(1);
    expect(waited.stderr).toContain(`Operation ${opId} failed in phase provisioning_infrastructure: PROVISIONING_INFRASTRUCTURE_FAILED`);
    expect(waited.stderr).toContain('Retry: sending the same request again will fail the same way.');
    expect(waited.stderr).toMatch(/Last log lines .*\n(.*\n){4}.* error +provisioning_infrastructure: Simulated failure/);
    const got = await deployctl(['operations', 'get', opId], key);
    expect(got.code).toBe(0);
    expect(got.stderr).toContain('Retry: sending the same request again will fail the same way.');
    const listed = await deployctl(['operations', 'logs', opId], key);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ {3}1 \S+ info {4}provisioning_db: Provisioning the database\.$/);
    expect(lines.at(-1)).toMatch(/ error +provisioning_infrastructure: Simulated failure/);
    const since = await deployctl(['operations', 'logs', opId, '--since', String(lines.length - 1)], key);
    expect(since.stdout.trimEnd().split('\n')).toEqual([lines.at(-1)]);
    const followed = await deployctl(['operations', 'logs', opId, '--follow'], key);
    expect(followed.code).toBe(1);
    expect(followed.stdout.trimEnd().split('\n')).toEqual(lines);
    expect((await deployctl(['operations', 'logs', opId, '--since', 'x'], key)).code).toBe(2);
  });
});
