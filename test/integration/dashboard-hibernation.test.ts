/**
 * Hibernate and wake from the dashboard (decision 50's routes below /dashboard/api, one
 * function for both: decision 305), in process over real HTTP with the emulated user pool,
 * DynamoDB Local and the real ASL: the public routes' answers and errors, the user as actor,
 * a viewer's 403 and another organization's 404.
 */
import { type DashboardSession, TEST_PASSWORD as PASSWORD, startDashboardSession } from '../helpers/dashboard-session.js';
import { eventually } from '../helpers/wait.js';

// Phases long enough (the simulated platform's jobs) that an operation is still in flight for
// the requests made while it runs, however loaded the machine; read at the first handler call.
const phaseDelay = process.env.PHASE_DELAY_MS;
process.env.PHASE_DELAY_MS = '3000';
afterAll(() => {
  if (phaseDelay === undefined) delete process.env.PHASE_DELAY_MS;
  else process.env.PHASE_DELAY_MS = phaseDelay;
});

let session: DashboardSession;
const org = `org-hib-${Date.now().toString(36)}`;
const otherOrg = `${org}-other`;
const tokens: Record<'admin' | 'viewer' | 'other', string> = { admin: '', viewer: '', other: '' };
const dash = (method: string, p: string, who: keyof typeof tokens, body?: unknown) =>
  session.send(method, p, { Authorization: `Bearer ${tokens[who]}` }, body);

beforeAll(async () => {
  session = await startDashboardSession();
  await session.users(['create', '--org', org, '--email', 'admin@hib.test', '--role', 'admin', '--password', PASSWORD]);
  await session.users(['create', '--org', org, '--email', 'viewer@hib.test', '--role', 'viewer', '--password', PASSWORD]);
  await session.users(['create', '--org', otherOrg, '--email', 'admin@other-hib.test', '--role', 'admin', '--password', PASSWORD]);
  tokens.admin = await session.signIn('admin@hib.test');
  tokens.viewer = await session.signIn('viewer@hib.test');
  tokens.other = await session.signIn('admin@other-hib.test');
});

afterAll(() => session.close());

const ended = (operationId: string) =>
  eventually(
    async () => {
      const r = await dash('GET', `/operations/${operationId}`, 'viewer');
      return ['succeeded', 'failed', 'canceled'].includes(r.body.data?.status) ? r.body.data : undefined;
    },
    `operation ${operationId} to end`,
    30_000,
    100,
  );

async function readyDeployment(name: string): Promise<string> {
  const created = await dash('POST', '/deployments', 'admin', { app_type: 'airflow', name });
  expect(created.status).toBe(202);
  expect((await ended(created.body.data.operation_id)).status).toBe('succeeded');
  return created.body.data.deployment_id;
}

const errorOf = (r: { status: number; body: any }) => ({ status: r.status, code: r.body.error?.code });

describe('hibernate and wake from the dashboard', () => {
  it('hibernates with an until (the user the actor), answers 200 when already there, wakes without a body', async () => {
    const id = await readyDeployment('dash-sleepy');
    const until = new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000).toISOString();
    const res = await dash('POST', `/deployments/${id}/hibernate`, 'admin', { until });
    expect(res.status).toBe(202);
    const opId = res.body.data.operation_id as string;
    expect(res.body.data).toMatchObject({ deployment_id: id, operation_id: opId });
    expect(res.headers.get('location')).toContain(`/operations/${opId}`);
    const op = await ended(opId);
    expect(op).toMatchObject({ type: 'deployment.hibernate', status: 'succeeded', progress: { phase: 'hibernated' } });
    const after = (await dash('GET', `/deployments/${id}`, 'viewer')).body.data;
    expect(after).toMatchObject({ status: 'ready', hibernation: { state: 'hibernated', until }, health: { status: 'hibernated' } });
    const events = (await dash('GET', `/activity?resource_id=${id}`, 'viewer')).body.data.items;
    // The hold was the signed-in user's change (decision 46); the state's, the system's when the operation succeeded.
    const adminSub = JSON.parse(Buffer.from(tokens.admin.split('.')[1]!, 'base64url').toString()).sub;
    const moves = events
      .filter((e: any) => e.data.previous?.hibernation)
      .map((e: any) => [e.actor, e.data.previous.hibernation, e.data.object.hibernation])
      .reverse();
    expect(moves).toEqual([
      [
        { type: 'user', id: adminSub },
        { state: 'awake', until: null },
        { state: 'awake', until },
      ],
      [{ type: 'system' }, { state: 'awake', until }, { state: 'hibernated', until }],
    ]);

    // Already hibernated: 200 with the record, no operation; a bad until is the public route's 400 at its field.
    const again = await dash('POST', `/deployments/${id}/hibernate`, 'admin');
    expect({ status: again.status, state: again.body.data.hibernation.state }).toEqual({ status: 200, state: 'hibernated' });
    expect(again.body.data.operation_id).toBeUndefined();
    const past = await dash('POST', `/deployments/${id}/wake`, 'admin', { until: '2020-01-01T00:00:00.000Z' });
    expect(errorOf(past)).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(past.body.error.details.map((d: { field: string }) => d.field)).toEqual(['until']);
    const tooFar = new Date(Date.now() + 8 * 86_400_000).toISOString();
    expect(errorOf(await dash('POST', `/deployments/${id}/wake`, 'admin', { until: tooFar }))).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
    });
    expect(errorOf(await dash('POST', `/deployments/${id}/wake`, 'admin', { until, extra: 1 }))).toEqual({
      status: 400,
      code: 'INVALID_REQUEST',
    });

    const woken = await dash('POST', `/deployments/${id}/wake`, 'admin');
    expect(woken.status).toBe(202);
    expect(await ended(woken.body.data.operation_id)).toMatchObject({ type: 'deployment.wake', status: 'succeeded' });
    expect((await dash('GET', `/deployments/${id}`, 'viewer')).body.data.hibernation).toEqual({ state: 'awake', until: null });
  });

  it('checks not ready, then the state (200), then an operation in progress (409 with its id), as the public routes do', async () => {
    const created = await dash('POST', '/deployments', 'admin', { app_type: 'superset' });
    const id = created.body.data.deployment_id as string;
    expect(errorOf(await dash('POST', `/deployments/${id}/wake`, 'admin'))).toEqual({ status: 409, code: 'DEPLOYMENT_NOT_READY' });
    await ended(created.body.data.operation_id);
    const first = await dash('POST', `/deployments/${id}/hibernate`, 'admin', {});
    expect(first.status).toBe(202);
    // Awake still: a wake is already in that state (200) before the hibernate in flight counts.
    expect((await dash('POST', `/deployments/${id}/wake`, 'admin')).status).toBe(200);
    const again = await dash('POST', `/deployments/${id}/hibernate`, 'admin');
    expect(again.body.error).toMatchObject({ code: 'OPERATION_IN_PROGRESS', operation_id: first.body.data.operation_id });
    expect(again.status).toBe(409);
    await ended(first.body.data.operation_id);
  });

  it('refuses a viewer with 403 and another organization with 404, changing nothing', async () => {
    const id = await readyDeployment('dash-guarded');
    const before = (await dash('GET', `/deployments/${id}`, 'viewer')).body.data;
    for (const kind of ['hibernate', 'wake']) {
      const p = `/deployments/${id}/${kind}`;
      expect({ kind, ...errorOf(await dash('POST', p, 'viewer', {})) }).toEqual({ kind, status: 403, code: 'INSUFFICIENT_ROLE' });
      expect({ kind, ...errorOf(await dash('POST', p, 'other', {})) }).toEqual({ kind, status: 404, code: 'DEPLOYMENT_NOT_FOUND' });
      expect({ kind, status: (await session.send('POST', p, {}, {})).status }).toEqual({ kind, status: 401 });
    }
    const missing = await dash('POST', '/deployments/00000000-0000-4000-8000-000000000000/hibernate', 'admin');
    expect(errorOf(missing)).toEqual({ status: 404, code: 'DEPLOYMENT_NOT_FOUND' });
    expect((await dash('GET', `/deployments/${id}`, 'viewer')).body.data).toEqual(before);
  });
});
