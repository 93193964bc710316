/**
 * Decision 51: an app user's password, given or made, is shown in the 202 answer (and an
 * Idempotency-Key replay of it) and nowhere else: not in the operation, its log, the
 * events (which are the webhooks' bodies, decision 38) or any table item in the clear. It
 * reaches the driver's provisioning job, and its sealed copy is gone once the operation
 * ends. Over HTTP against DynamoDB Local and the real ASL; only the driver is replaced,
 * to record what it is handed.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { operationKey } from '../../contract/table/entities.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { simulatedPlatform } from '../../functions/adapters/platform/simulated-platform.js';
import { WITHHELD } from '../../functions/core/operation-logs.js';
import type { JobStatus, PhaseJob } from '../../functions/core/platform.js';
import { inject } from '../../functions/lib/injectable.js';
import { ensureTable } from '../../local/dynamodb-local.js';
import { type EventPipeline, startEventPipeline } from '../../local/event-pipeline.js';
import { operationReaches, readyDeployment } from '../helpers/api.js';
import { type CallResult, call, createKey, type TestKey } from '../helpers/fixtures.js';
import { APP_PASSWORD_PREFIX, registerCanary } from '../helpers/log-scan.js';
import { scanTable } from '../helpers/table-scan.js';
import { eventually } from '../helpers/wait.js';
import { receiver } from '../helpers/webhook-receiver.js';

// A table of its own: the event pipeline reads its stream from the start, and the shared
// table's stream holds every record the run has written (late in a run, more than a test's
// deadline to read through).
process.env.TABLE_NAME = 'deployments-app-user-passwords';
beforeAll(() => ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB!, process.env.TABLE_NAME!));

/** Given passwords start with the prefix the log scan looks for; made ones are registered as canaries. */
const given = (tail: string) => `${APP_PASSWORD_PREFIX}${tail}`;

/** What the driver was handed for provisioning_user, by operation. */
const jobs = new Map<string, PhaseJob>();
/** How the driver answers a check of provisioning_user: the simulated platform's answer unless set. */
let answer: ((job: PhaseJob) => JobStatus) | undefined;
const simulated = simulatedPlatform({ phaseDelayMs: 0, simulatedFailure: '' });

beforeAll(() => {
  inject('HostingPlatform', {
    start: (job) => {
      if (job.phase === 'provisioning_user') jobs.set(job.operationId, job);
      return simulated.start(job);
    },
    check: async (handle, log) => {
      const { operationId, phase } = JSON.parse(handle) as { operationId: string; phase: string };
      const job = jobs.get(operationId);
      return phase === 'provisioning_user' && job && answer ? answer(job) : simulated.check(handle, log);
    },
    cancel: (handle) => simulated.cancel(handle),
  });
});
afterAll(() => inject('HostingPlatform', simulated));
afterEach(() => {
  answer = undefined;
});

const user = (extra: Record<string, unknown> = {}) => ({ username: 'ada', email: 'ada@example.com', role: 'editor', ...extra });

const createUser = (key: string, deploymentId: string, body: unknown, headers: Record<string, string> = {}) =>
  call('POST', `/deployments/${deploymentId}/users`, { key, body, headers });

/** The password an answer shows, registered for the log scan. */
function shown(res: CallResult): string {
  expect(res.status).toBe(202);
  const password = res.body.data.initial_password as string;
  expect(typeof password).toBe('string');
  registerCanary(password);
  return password;
}

const ended = (key: string, res: CallResult) => operationReaches(key, res.body.data.operation_id, ['succeeded', 'failed', 'canceled']);

/** The operation's item as stored. */
const storedOperation = async (orgId: string, id: string) =>
  (await ddb.send(new GetCommand({ TableName: tableName(), Key: operationKey(orgId, id), ConsistentRead: true }))).Item;

/** Every item of the table, as text. */
const tableText = async (): Promise<string> => JSON.stringify(await scanTable(), (_k, v) => (v instanceof Set ? [...v] : v));

/** Everything the organization can read about the operation and its deployment. */
async function readable(k: TestKey, deploymentId: string, operationId: string): Promise<string> {
  const paths = [
    `/operations/${operationId}`,
    `/operations/${operationId}/logs?per_page=100`,
    `/operations?per_page=100`,
    `/deployments/${deploymentId}`,
    `/events?per_page=100`,
    `/events?resource_id=${operationId}`,
  ];
  const bodies = await Promise.all(paths.map((p) => call('GET', p, { key: k.key })));
  for (const b of bodies) expect(b.status).toBe(200);
  return JSON.stringify(bodies.map((b) => b.body));
}

/** The password shown once and nowhere else; the driver got it; the sealed copy is gone. */
async function expectShownOnceOnly(k: TestKey, deploymentId: string, res: CallResult, password: string) {
  const operationId = res.body.data.operation_id as string;
  expect(jobs.get(operationId)?.input).toEqual({ ...user(), password });
  const text = await readable(k, deploymentId, operationId);
  expect(text).toContain(operationId); // the reads did find the operation
  expect(text).not.toContain(password);
  expect(await tableText()).not.toContain(password);
  const item = await storedOperation(k.record.org_id, operationId);
  expect(item).toBeDefined();
  expect(item!.sealed_input).toBeUndefined();
  expect(item!.params).toEqual(user());
}

describe('POST /deployments/{id}/users: the password (decision 51)', () => {
  let k: TestKey;
  let deploymentId: string;
  beforeAll(async () => {
    k = await createKey();
    deploymentId = (await readyDeployment(k.key)).id;
  });

  it('shows a given password once, hands it to the driver, and keeps it nowhere', async () => {
    const password = given('Correct-Horse-1');
    const res = await createUser(k.key, deploymentId, user({ password }));
    expect(shown(res)).toBe(password);
    expect(res.body.data).toEqual({
      deployment_id: deploymentId,
      operation_id: expect.stringMatching(/^op_/),
      links: expect.any(Object),
      initial_password: password,
    });
    expect((await ended(k.key, res)).status).toBe('succeeded');
    await expectShownOnceOnly(k, deploymentId, res, password);
  });

  it('makes 24 letters and digits when none is given, a different one each time', async () => {
    const first = await createUser(k.key, deploymentId, user());
    const password = shown(first);
    expect(password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect((await ended(k.key, first)).status).toBe('succeeded');
    await expectShownOnceOnly(k, deploymentId, first, password);
    const second = shown(await createUser(k.key, deploymentId, user()));
    expect(second).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(second).not.toBe(password);
  });

  it.each([
    [11, 400],
    [12, 202],
    [128, 202],
    [129, 400],
  ])('a given password of %i characters is %i', async (length, status) => {
    const password = given('x'.repeat(length - APP_PASSWORD_PREFIX.length));
    expect(password).toHaveLength(length);
    const res = await createUser(k.key, deploymentId, user({ password }));
    expect(res.status).toBe(status);
    if (status === 202) {
      expect(shown(res)).toBe(password);
      await ended(k.key, res);
    } else {
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['password']);
      expect(JSON.stringify(res.body)).not.toContain(password);
    }
  });

  it('a password that is not a string is 400 naming password', async () => {
    const res = await createUser(k.key, deploymentId, user({ password: 123456789012 }));
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(['password']);
  });

  it('an Idempotency-Key replay repeats the password to the same key only, and the kept answer is sealed', async () => {
    const headers = { 'Idempotency-Key': `users-${Date.now()}` };
    const first = await createUser(k.key, deploymentId, user(), headers);
    const password = shown(first);
    const again = await createUser(k.key, deploymentId, user(), headers);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    // Another key of the organization gets the same answer without the password.
    const other = await createKey({ orgId: k.record.org_id });
    const elsewhere = await createUser(other.key, deploymentId, user(), headers);
    expect(elsewhere.headers['idempotent-replayed']).toBe('true');
    expect(elsewhere.body.data.operation_id).toBe(first.body.data.operation_id);
    expect(elsewhere.body.data.initial_password).toBeUndefined();
    await ended(k.key, first);
    expect(await tableText()).not.toContain(password);
  });

  it('an Idempotency-Key tells given passwords apart though its record keeps only their HMAC', async () => {
    const headers = { 'Idempotency-Key': `given-${Date.now()}` };
    const password = given('first-of-two');
    const first = await createUser(k.key, deploymentId, user({ password }), headers);
    expect(shown(first)).toBe(password);
    const same = await createUser(k.key, deploymentId, user({ password }), headers);
    expect([same.headers['idempotent-replayed'], same.body.data.initial_password]).toEqual(['true', password]);
    const other = await createUser(k.key, deploymentId, user({ password: given('second-of-two') }), headers);
    expect([other.status, other.body.error?.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    await ended(k.key, first);
  });
});

describe('the sealed copy ends with the operation, however it ends', () => {
  let k: TestKey;
  let deploymentId: string;
  beforeAll(async () => {
    k = await createKey();
    deploymentId = (await readyDeployment(k.key)).id;
  });

  it('failed: the driver quoting the password in its log and its failure has both withheld whole (decision 231)', async () => {
    answer = (job) => ({
      state: 'failed',
      transient: false,
      message: `The identity provider refused the password ${job.input?.password}.`,
      log: { lines: [{ level: 'info', message: `setting password ${job.input?.password} for ${job.input?.username}` }], cursor: '1' },
    });
    const res = await createUser(k.key, deploymentId, user({ password: given('refused-pass-1') }));
    const password = shown(res);
    const op = await ended(k.key, res);
    expect(op).toMatchObject({
      status: 'failed',
      error: { message: WITHHELD },
    });
    const logs = (await call('GET', `/operations/${op.id}/logs`, { key: k.key })).body.data.items.map(
      (l: { message: string }) => l.message,
    );
    expect(logs).toContain(WITHHELD);
    expect(logs.join('\n')).not.toContain('setting password');
    await expectShownOnceOnly(k, deploymentId, res, password);
  });

  it('canceled while the driver works on it', async () => {
    answer = () => ({ state: 'running', nextCheckSeconds: 1 });
    const res = await createUser(k.key, deploymentId, user());
    const password = shown(res);
    const id = res.body.data.operation_id as string;
    await eventually(async () => jobs.has(id), 'the provisioning job to start');
    // While it runs, the operation holds the password sealed, for itself.
    const sealed = (await storedOperation(k.record.org_id, id))!.sealed_input as Record<string, string>;
    expect(Object.keys(sealed)).toEqual(['password']);
    expect(sealed.password).toMatch(/^v2:/);
    expect(sealed.password).not.toContain(password);
    const canceled = await call('POST', `/operations/${id}/cancel`, { key: k.key, body: {} });
    expect(canceled.body.data.status).toBe('canceled');
    await expectShownOnceOnly(k, deploymentId, res, password);
  });

  it('canceled by a destroy', async () => {
    const d = await readyDeployment(k.key);
    answer = () => ({ state: 'running', nextCheckSeconds: 1 });
    const headers = { 'Idempotency-Key': `destroyed-${Date.now()}` };
    const res = await createUser(k.key, d.id, user(), headers);
    const password = shown(res);
    const destroy = await call('DELETE', `/deployments/${d.id}`, { key: k.key });
    expect(destroy.status).toBe(202);
    expect((await ended(k.key, res)).status).toBe('canceled');
    const item = await storedOperation(k.record.org_id, res.body.data.operation_id);
    expect(item!.sealed_input).toBeUndefined();
    expect(await tableText()).not.toContain(password);
    await operationReaches(k.key, destroy.body.data.operation_id, ['succeeded']);
    // Decision 257: once the deployment is destroyed, a replay, even the same key's, omits it.
    const replay = await createUser(k.key, d.id, user(), headers);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.operation_id).toBe(res.body.data.operation_id);
    expect(replay.body.data.initial_password).toBeUndefined();
  });
});

describe('webhooks (decision 38: their bodies are the events)', () => {
  let pipeline: EventPipeline;
  beforeAll(() => {
    pipeline = startEventPipeline({ endpoint: process.env.AWS_ENDPOINT_URL_DYNAMODB!, tableName: process.env.TABLE_NAME!, dataDir: null });
  });
  afterAll(() => pipeline.stop());

  it('deliver every event of the provisioning, none with the password', async () => {
    const k = await createKey();
    const r = await receiver();
    try {
      expect((await call('POST', '/webhooks', { key: k.key, body: { url: r.url } })).status).toBe(201);
      const d = await readyDeployment(k.key);
      const res = await createUser(k.key, d.id, user());
      const password = shown(res);
      expect((await ended(k.key, res)).status).toBe('succeeded');
      const events = (await call('GET', '/events?per_page=100', { key: k.key })).body.data.items as { id: string }[];
      await eventually(
        async () => new Set(r.received.map((x) => (JSON.parse(x.body) as { id: string }).id)).size >= events.length,
        'every event delivered',
        60_000,
        50,
      );
      const bodies = r.received.map((x) => x.body).join('\n');
      expect(bodies).toContain(res.body.data.operation_id);
      expect(bodies).not.toContain(password);
    } finally {
      await r.close();
    }
  }, 120_000);
});
