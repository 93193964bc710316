/**
 * The dashboard's API and its user pool, in process over real HTTP: the local server
 * with the emulated Cognito pool, users made by the users CLI through the AWS SDK, the
 * handlers verifying tokens against the pool's JWKS (adapters/auth/user-tokens.ts), DynamoDB Local.
 */
import { generateKeyPair, SignJWT } from 'jose';
import { UsageError } from '../../cli-kit/args.js';
import { recordUsage } from '../../functions/adapters/dynamo/usage-store.js';
import { createApiKey } from '../../functions/app/api-keys.js';
import { destroyDeployment } from '../../functions/app/deployment-commands.js';
import { userActor } from '../../functions/core/events.js';
import { LOCAL_CLIENT_ID, LOCAL_USER_POOL_ID } from '../../local/user-pool.js';
import { runUsersCommand } from '../../local/users-cli.js';
import { operationReaches } from '../helpers/api.js';
import { type DashboardSession, TEST_PASSWORD as PASSWORD, startDashboardSession } from '../helpers/dashboard-session.js';
import { call } from '../helpers/fixtures.js';
import { runLocalScript } from '../helpers/run-process.js';
import { eventually } from '../helpers/wait.js';

let session: DashboardSession;
let issuer: string;
const org = `org-${Date.now().toString(36)}`;
const otherOrg = `${org}-other`;
const tokens: Record<'admin' | 'viewer' | 'other', string> = { admin: '', viewer: '', other: '' };

const users = (args: string[]) => session.users(args);
const initiateAuth = (flow: string, params: Record<string, string>) => session.initiateAuth(flow, params);
const dash = (method: string, p: string, headers: Record<string, string>, body?: unknown) => session.send(method, p, headers, body);
const as = (who: keyof typeof tokens) => ({ Authorization: `Bearer ${tokens[who]}` });

beforeAll(async () => {
  session = await startDashboardSession();
  issuer = session.issuer;
  await users(['create', '--org', org, '--email', 'Admin@Example.test', '--role', 'admin', '--password', PASSWORD]);
  await users(['create', '--org', org, '--email', 'viewer@example.test', '--role', 'viewer', '--password', PASSWORD]);
  await users(['create', '--org', otherOrg, '--email', 'admin@other.test', '--role', 'admin', '--password', PASSWORD]);
  tokens.admin = await session.signIn('admin@example.test');
  tokens.viewer = await session.signIn('viewer@example.test');
  tokens.other = await session.signIn('admin@other.test');
});

afterAll(() => session.close());

describe('the users CLI and the emulated user pool', () => {
  it('lists users by organization, and refuses bad arguments, a weak password and a second account for an email', async () => {
    expect(JSON.parse((await users(['list', '--org', org, '--json']))[0]!)).toEqual([
      { email: 'admin@example.test', org_id: org, role: 'admin', status: 'CONFIRMED' },
      { email: 'viewer@example.test', org_id: org, role: 'viewer', status: 'CONFIRMED' },
    ]);
    const run = (args: string[]) => runUsersCommand(args, { out: () => undefined }, session.pool(), LOCAL_USER_POOL_ID);
    await expect(run(['create', '--org', org, '--email', 'x@example.test', '--role', 'owner'])).rejects.toThrow(UsageError);
    await expect(run(['create', '--org', 'bad org', '--email', 'x@example.test', '--role', 'admin'])).rejects.toThrow(UsageError);
    await expect(run(['create', '--org', org, '--email', 'x@example.test', '--role', 'admin', '--password', 'short'])).rejects.toThrow(
      /Password not long enough/,
    );
    await expect(
      run(['create', '--org', org, '--email', 'viewer@example.test', '--role', 'admin', '--password', PASSWORD]),
    ).rejects.toThrow(/already exists/);
  });

  it('prints its usage with --help or -h (exit 0), and answers an unknown command with an error and the usage (exit 2)', async () => {
    const cli = (...argv: string[]) => runLocalScript('bin/users.ts', argv);
    const [help, short, unknown] = await Promise.all([cli('--help'), cli('list', '-h'), cli('promote', 'a@example.test')]);
    for (const r of [help, short]) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage:\n/);
      for (const command of ['create', 'list', 'delete']) expect(r.stdout).toContain(`users ${command} `);
    }
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^unknown command: promote\n\nUsage:\n/m);
  });

  it('generates a password when none is given, shown once, that signs in', async () => {
    const [line] = await users(['create', '--org', org, '--email', 'new@example.test', '--role', 'viewer', '--json']);
    const made = JSON.parse(line!);
    expect(made.password).toMatch(/^.{12,}$/);
    const r = await initiateAuth('USER_PASSWORD_AUTH', { USERNAME: 'new@example.test', PASSWORD: made.password });
    expect(r.status).toBe(200);
  });

  it('answers a wrong password and an unknown user alike, and refreshes only with a refresh token it issued', async () => {
    for (const USERNAME of ['admin@example.test', 'nobody@example.test']) {
      const r = await initiateAuth('USER_PASSWORD_AUTH', { USERNAME, PASSWORD: 'Wrong-password-1' });
      expect({ status: r.status, body: r.body }).toEqual({
        status: 400,
        body: { __type: 'NotAuthorizedException', message: 'Incorrect username or password.' },
      });
    }
    const signed = await initiateAuth('USER_PASSWORD_AUTH', { USERNAME: 'admin@example.test', PASSWORD });
    const refreshed = await initiateAuth('REFRESH_TOKEN_AUTH', { REFRESH_TOKEN: signed.body.AuthenticationResult.RefreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.AuthenticationResult.RefreshToken).toBeUndefined();
    expect(refreshed.body.AuthenticationResult.ExpiresIn).toBe(3600);
    expect((await initiateAuth('REFRESH_TOKEN_AUTH', { REFRESH_TOKEN: 'made-up' })).body.__type).toBe('NotAuthorizedException');
  });
});

describe('the dashboard API', () => {
  it('takes only the dashboard token: none, an API key, a malformed, foreign-signed or access token are 401 in the envelope', async () => {
    const { key } = await createApiKey({ orgId: org, name: 'not-for-the-dashboard', now: new Date() });
    // Claims the pool would write, under the pool's own key id, signed with another key.
    const { keys } = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    const forged = async (claims: Record<string, unknown>) => {
      const pair = await generateKeyPair('RS256');
      return new SignJWT({ sub: 's', email: 'e@x.test', 'custom:org_id': org, 'custom:role': 'admin', ...claims })
        .setProtectedHeader({ alg: 'RS256', kid: keys[0]!.kid })
        .setIssuer(issuer)
        .setAudience(LOCAL_CLIENT_ID)
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(pair.privateKey);
    };
    const cases: [Record<string, string>, string][] = [
      [{}, 'MISSING_TOKEN'],
      [{ 'X-API-Key': key }, 'MISSING_TOKEN'],
      [{ Authorization: 'Bearer not-a-jwt' }, 'INVALID_TOKEN'],
      [{ Authorization: `Bearer ${await forged({ token_use: 'id' })}` }, 'INVALID_TOKEN'],
    ];
    for (const [headers, code] of cases) {
      const r = await dash('GET', '/keys', headers);
      expect({ status: r.status, code: r.body.error.code }).toEqual({ status: 401, code });
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
      expect(r.headers.get('cache-control')).toBe('no-store');
    }
    expect((await dash('GET', '/keys', { 'X-API-Key': key })).body.error.message).toMatch(/API keys are not accepted/);
    // The pool's access token is genuine, but it is not an ID token: it names no organization or role.
    const signed = await initiateAuth('USER_PASSWORD_AUTH', { USERNAME: 'admin@example.test', PASSWORD });
    const access = await dash('GET', '/keys', { Authorization: `Bearer ${signed.body.AuthenticationResult.AccessToken}` });
    expect(access.body.error.code).toBe('INVALID_TOKEN');
  });

  it("creates keys for the signed-in admin's organization, validating the body, and lists them newest first without secrets", async () => {
    const bad = [
      [{ name: '' }, 'name'],
      [{ name: 'x', scopes: ['org:read', 'org:read'] }, 'scopes'],
      [{ name: 'x', scopes: ['everything'] }, 'scopes.0'],
      [{ name: 'x', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ name: 'x', org_id: otherOrg }, 'org_id'],
    ] as const;
    for (const [body, field] of bad) {
      const r = await dash('POST', '/keys', as('admin'), body);
      expect({ status: r.status, code: r.body.error.code, fields: r.body.error.details.map((d: { field: string }) => d.field) }).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
        fields: [field],
      });
    }
    const first = await dash('POST', '/keys', as('admin'), { name: 'first' });
    const second = await dash('POST', '/keys', as('admin'), {
      name: 'second',
      scopes: ['org:read'],
      expires_at: '2099-01-01T00:00:00+01:00',
    });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({
      name: 'second',
      scopes: ['org:read'],
      expires_at: '2098-12-31T23:00:00.000Z',
      revoked_at: null,
    });
    expect(second.body.data.key).toMatch(/^svc_sk_live_/);
    expect(second.body.data.hint).toBe(`svc_sk_live_…${second.body.data.key.slice(-4)}`);
    const list = await dash('GET', '/keys', as('viewer'));
    const names = list.body.data.items.map((k: { name: string }) => k.name);
    expect(names.slice(0, 2)).toEqual(['second', 'first']);
    expect(JSON.stringify(list.body)).not.toContain(first.body.data.key);
    expect(Object.keys(list.body.data.items[0]).sort()).toEqual(
      ['created_at', 'expires_at', 'hint', 'id', 'last_used_at', 'name', 'revoked_at', 'scopes'].sort(),
    );
    expect((await dash('GET', '/keys', as('other'))).body.data.items).toEqual([]);
  });

  it("pages a key's usage log newest first by cursor, filters it by status, and hides other organizations' keys", async () => {
    const { record } = await createApiKey({ orgId: org, name: 'busy', now: new Date() });
    const base = Date.parse('2026-11-20T10:00:00.000Z');
    const statuses = [200, 401, 200, 429, 200, 200, 403];
    for (const [i, status] of statuses.entries()) {
      await recordUsage({
        at: new Date(base + i * 1000).toISOString(),
        method: 'GET',
        route: '/api/v1/deployments',
        path: '/api/v1/deployments',
        client_address: '203.0.113.9',
        status,
        key_id: record.id,
        org_id: org,
        request_id: `req_${i}`,
      });
    }
    const all: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const q: string = `?per_page=3${cursor ? `&cursor=${cursor}` : ''}`;
      const r = await dash('GET', `/keys/${record.id}/usage${q}`, as('viewer'));
      expect(r.status).toBe(200);
      all.push(...r.body.data.items.map((u: { request_id: string }) => u.request_id));
      cursor = r.body.data.next_cursor;
      if (!cursor) break;
    }
    expect(all).toEqual(['req_6', 'req_5', 'req_4', 'req_3', 'req_2', 'req_1', 'req_0']);
    const ok = await dash('GET', `/keys/${record.id}/usage?status=200&per_page=2`, as('viewer'));
    expect(ok.body.data.items.map((u: { request_id: string }) => u.request_id)).toEqual(['req_5', 'req_4']);
    const rest = await dash('GET', `/keys/${record.id}/usage?status=200&per_page=2&cursor=${ok.body.data.next_cursor}`, as('viewer'));
    expect(rest.body.data.items.map((u: { request_id: string }) => u.request_id)).toEqual(['req_2', 'req_0']);
    for (const q of ['status=99', 'status=abc', 'per_page=0', 'cursor=bm90LWEtY3Vyc29y']) {
      const r = await dash('GET', `/keys/${record.id}/usage?${q}`, as('viewer'));
      expect({ q, status: r.status, code: r.body.error.code }).toEqual({ q, status: 400, code: 'INVALID_REQUEST' });
    }
    for (const id of [record.id, 'key_00000000000000000000', 'nonsense']) {
      const r = await dash('GET', `/keys/${id}/usage`, as('other'));
      expect({ id, status: r.status, code: r.body.error.code }).toEqual({ id, status: 404, code: 'API_KEY_NOT_FOUND' });
    }
  });

  it('lets only an admin of the organization revoke, once and for all', async () => {
    const { record } = await createApiKey({ orgId: org, name: 'to-revoke', now: new Date() });
    const viewer = await dash('DELETE', `/keys/${record.id}`, as('viewer'));
    expect({ status: viewer.status, code: viewer.body.error.code }).toEqual({ status: 403, code: 'INSUFFICIENT_ROLE' });
    expect((await dash('DELETE', `/keys/${record.id}`, as('other'))).status).toBe(404);
    const first = await dash('DELETE', `/keys/${record.id}`, as('admin'));
    expect(first.status).toBe(200);
    expect(first.body.data.revoked_at).toMatch(/Z$/);
    const again = await dash('DELETE', `/keys/${record.id}`, as('admin'));
    expect(again.body.data.revoked_at).toBe(first.body.data.revoked_at);
  });

  it('lets only an admin of the organization rotate: a new key shown once, the old one working until the grace ends', async () => {
    const soon = new Date(Date.now() + 3_600_000).toISOString();
    const { record, key: oldKey } = await createApiKey({
      orgId: org,
      name: 'to-rotate',
      scopes: ['org:read'],
      expiresAt: soon,
      now: new Date(),
    });
    const path = `/keys/${record.id}/rotate`;
    const viewer = await dash('POST', path, as('viewer'), { grace_seconds: 60 });
    expect({ status: viewer.status, code: viewer.body.error.code }).toEqual({ status: 403, code: 'INSUFFICIENT_ROLE' });
    const other = await dash('POST', path, as('other'), { grace_seconds: 60 });
    expect({ status: other.status, code: other.body.error.code }).toEqual({ status: 404, code: 'API_KEY_NOT_FOUND' });
    for (const bad of [{ grace_seconds: 604_801 }, { grace_seconds: -1 }, { grace_seconds: 1.5 }, { grace_seconds: '60' }, { grace: 60 }]) {
      const r = await dash('POST', path, as('admin'), bad);
      expect({ bad, status: r.status, code: r.body.error.code }).toEqual({ bad, status: 400, code: 'INVALID_REQUEST' });
    }

    const before = Date.now();
    const rotated = await dash('POST', path, as('admin'), { grace_seconds: 120 });
    expect(rotated.status).toBe(201);
    expect(rotated.body.data).toMatchObject({
      name: 'to-rotate',
      scopes: ['org:read'],
      expires_at: soon,
      revoked_at: null,
      rotated_from: record.id,
    });
    expect(rotated.body.data.key).toMatch(/^svc_sk_live_/);
    const listed = (await dash('GET', '/keys', as('admin'))).body.data.items as { id: string; expires_at: string }[];
    expect(listed.filter((k) => k.id === rotated.body.data.id)).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(rotated.body.data.key);
    const oldExpiry = Date.parse(listed.find((k) => k.id === record.id)!.expires_at);
    expect(oldExpiry).toBeGreaterThanOrEqual(before + 120_000);
    expect(oldExpiry).toBeLessThanOrEqual(Date.now() + 120_000);
    for (const key of [oldKey, rotated.body.data.key]) expect((await call('GET', '/key', { key })).status).toBe(200);
    // Decision 229: the old key, in its grace, is not rotated a second time.
    const twice = await dash('POST', path, as('admin'), { grace_seconds: 120 });
    expect({ status: twice.status, code: twice.body.error.code }).toEqual({ status: 409, code: 'API_KEY_NOT_ROTATABLE' });
    expect(twice.body.error.message).toBe(
      `API key ${record.id} was rotated already (its successor is ${rotated.body.data.id}); rotate ${rotated.body.data.id} instead.`,
    );

    // The new key may be rotated again (the default grace, a day, ends after its own expiry, which it keeps).
    const again = await dash('POST', `/keys/${rotated.body.data.id}/rotate`, as('admin'), {});
    expect(again.body.data).toMatchObject({ expires_at: soon, rotated_from: rotated.body.data.id });
    expect(
      (await dash('GET', '/keys', as('admin'))).body.data.items.find((k: { id: string }) => k.id === rotated.body.data.id).expires_at,
    ).toBe(soon);

    await dash('DELETE', `/keys/${again.body.data.id}`, as('admin'));
    const revoked = await dash('POST', `/keys/${again.body.data.id}/rotate`, as('admin'), { grace_seconds: 0 });
    expect({ status: revoked.status, code: revoked.body.error.code }).toEqual({ status: 409, code: 'API_KEY_NOT_ROTATABLE' });
  });

  it('shows the audit trail newest first with each actor named: a key by its name, the viewer by email, the workflow as null', async () => {
    const { key, record } = await createApiKey({ orgId: org, name: 'deployer', now: new Date() });
    const created = await call('POST', '/deployments', { key: key, body: { app_type: 'airflow' } });
    expect(created.status).toBe(202);
    const depId: string = created.body.data.deployment_id;
    await operationReaches(key, created.body.data.operation_id, ['succeeded']);
    // A change made from the dashboard, by the admin (the commands take the actor: decision 46).
    const adminSub = (JSON.parse(Buffer.from(tokens.admin.split('.')[1]!, 'base64url').toString()) as { sub: string }).sub;
    const destroy = await destroyDeployment(org, depId, new Date(), userActor(adminSub));
    await operationReaches(key, destroy.operationId, ['succeeded']);

    type Entry = { sequence: number; type: string; actor: { type: string; id?: string }; actor_name: string | null };
    const trail = async (who: keyof typeof tokens, query = '') => {
      const r = await dash('GET', `/activity?per_page=100${query}`, as(who));
      expect(r.status).toBe(200);
      return r.body.data.items as Entry[];
    };
    const asViewer = await trail('viewer');
    expect(asViewer.map((e) => e.sequence)).toEqual([...asViewer.map((e) => e.sequence)].sort((x, y) => y - x));
    const named = (items: Entry[]) => new Set(items.map((e) => `${e.actor.type} ${e.actor.id ?? ''} ${e.actor_name}`));
    expect(named(asViewer)).toEqual(new Set([`api_key ${record.id} deployer`, `user ${adminSub} null`, 'system  null']));
    // The signed-in user's own changes go by their email.
    expect(named(await trail('admin'))).toContain(`user ${adminSub} admin@example.test`);
    // Filtered by deployment: its own events, created by the key, destroyed by the user, moved by the workflow.
    const ofDeployment = await trail('viewer', `&resource_id=${depId}`);
    expect(ofDeployment.map((e) => [e.type, e.actor.type])).toEqual([
      ['deployment.updated', 'system'], // destroyed
      ['deployment.updated', 'user'], // destroying
      ['deployment.updated', 'system'], // ready
      ['deployment.created', 'api_key'],
    ]);
    const bad = await dash('GET', '/activity?resource_id=nope', as('viewer'));
    expect({ status: bad.status, code: bad.body.error.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(await trail('other')).toEqual([]);
  });

  it('tells the app who is signed in, and answers other methods with 405 and unknown paths with 404', async () => {
    expect((await dash('GET', '/me', as('viewer'))).body.data).toEqual({ email: 'viewer@example.test', org_id: org, role: 'viewer' });
    const put = await dash('PUT', '/keys', as('admin'));
    expect({ status: put.status, code: put.body.error.code }).toEqual({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    expect((await dash('GET', '/nothing', as('admin'))).body.error.code).toBe('NOT_FOUND');
  });
});

describe('managing deployments from the dashboard', () => {
  /** Waits, through the dashboard API (a viewer of the organization by default), for an operation to end; its record. */
  const ended = (operationId: string, who: keyof typeof tokens = 'viewer') =>
    eventually(
      async () => {
        const r = await dash('GET', `/operations/${operationId}`, as(who));
        return ['succeeded', 'failed', 'canceled'].includes(r.body.data?.status) ? r.body.data : undefined;
      },
      `operation ${operationId} to end`,
      30_000,
      100,
    );

  it('lets an admin create, update (dry run first), roll back and destroy a deployment of the organization; a secret is never shown', async () => {
    const created = await dash('POST', '/deployments', as('admin'), {
      app_type: 'airflow',
      name: 'dash-managed',
      config: { size: 'small' },
    });
    expect(created.status).toBe(202);
    const id = created.body.data.deployment_id as string;
    expect((await ended(created.body.data.operation_id)).status).toBe('succeeded');
    const shown = await dash('GET', `/deployments/${id}`, as('viewer'));
    expect(shown.body.data).toMatchObject({ id, name: 'dash-managed', status: 'ready', revision: 1, config: { size: 'small', env: {} } });

    const patch = { config: { size: 'large', env: { PLAIN: { value: 'v1' }, TOKEN: { value: 'hunter2-secret', secret: true } } } };
    const preview = await dash('PATCH', `/deployments/${id}?dry_run=true`, as('admin'), patch);
    expect({ status: preview.status, etag: preview.headers.get('etag') }).toEqual({ status: 200, etag: '"1"' });
    expect(preview.body.data.changes).toEqual([
      { field: 'config.env.PLAIN', from: null, to: { value: 'v1', secret: false } },
      { field: 'config.env.TOKEN', from: null, to: { secret: true } },
      { field: 'config.size', from: 'small', to: 'large' },
    ]);
    expect(JSON.stringify(preview.body)).not.toContain('hunter2');
    // Nothing was written by the dry run; a stale If-Match is refused; a bad value is a 400 naming its field.
    expect((await dash('GET', `/deployments/${id}/revisions`, as('viewer'))).body.data.items).toHaveLength(1);
    const stale = await dash('PATCH', `/deployments/${id}`, { ...as('admin'), 'If-Match': '"7"' }, patch);
    expect({ status: stale.status, code: stale.body.error.code }).toEqual({ status: 412, code: 'PRECONDITION_FAILED' });
    const bad = await dash('PATCH', `/deployments/${id}`, as('admin'), { config: { size: 'huge' } });
    expect({ status: bad.status, fields: bad.body.error.details.map((d: { field: string }) => d.field) }).toEqual({
      status: 400,
      fields: ['config.size'],
    });

    const applied = await dash('PATCH', `/deployments/${id}`, { ...as('admin'), 'If-Match': '"1"' }, patch);
    expect(applied.status).toBe(202);
    expect((await ended(applied.body.data.operation_id)).result).toEqual({ revision: 2 });
    const updated = (await dash('GET', `/deployments/${id}`, as('viewer'))).body.data;
    expect(updated.config).toEqual({
      app_version: updated.config.app_version,
      size: 'large',
      env: { PLAIN: { value: 'v1', secret: false }, TOKEN: { secret: true } },
      hibernation: null,
    });

    const back = await dash('POST', `/deployments/${id}/rollback?dry_run=true`, as('admin'), { revision: 1 });
    expect(back.body.data.changes.map((c: { field: string }) => c.field)).toEqual(['config.env.PLAIN', 'config.env.TOKEN', 'config.size']);
    const rolled = await dash('POST', `/deployments/${id}/rollback`, as('admin'), { revision: 1 });
    expect(rolled.status).toBe(202);
    expect((await ended(rolled.body.data.operation_id)).status).toBe('succeeded');
    const revisions = await dash('GET', `/deployments/${id}/revisions`, as('viewer'));
    expect(revisions.body.data.items.map((r: { revision: number; rollback_of: number | null }) => [r.revision, r.rollback_of])).toEqual([
      [3, 1],
      [2, null],
      [1, null],
    ]);
    expect(JSON.stringify(revisions.body)).not.toContain('hunter2');
    const unknown = await dash('POST', `/deployments/${id}/rollback`, as('admin'), { revision: 9 });
    expect({ status: unknown.status, code: unknown.body.error.code }).toEqual({ status: 404, code: 'REVISION_NOT_FOUND' });

    const destroyed = await dash('DELETE', `/deployments/${id}`, as('admin'));
    expect(destroyed.status).toBe(202);
    expect((await ended(destroyed.body.data.operation_id)).type).toBe('deployment.destroy');
    expect((await dash('GET', `/deployments/${id}`, as('viewer'))).body.data.status).toBe('destroyed');
  });

  it('lets an admin cancel an operation in flight, and refuses one that has ended', async () => {
    const created = await dash('POST', '/deployments', as('admin'), { app_type: 'superset' });
    const opId = created.body.data.operation_id as string;
    const canceled = await dash('POST', `/operations/${opId}/cancel`, as('admin'));
    // The create may have finished already at PHASE_DELAY_MS=0: then it is not cancelable, and says so.
    if (canceled.status === 200) expect(canceled.body.data.status).toBe('canceled');
    else expect({ status: canceled.status, code: canceled.body.error.code }).toEqual({ status: 409, code: 'OPERATION_NOT_CANCELABLE' });
    await ended(opId);
    const again = await dash('POST', `/operations/${opId}/cancel`, as('admin'));
    expect({ status: again.status, code: again.body.error.code }).toEqual({ status: 409, code: 'OPERATION_NOT_CANCELABLE' });
  });

  it("shows a viewer a deployment's health and metrics as the public API answers them, and another organization neither", async () => {
    const created = await dash('POST', '/deployments', as('admin'), {
      app_type: 'airflow',
      name: 'dash-monitored',
      config: { env: { SIMULATE_UNHEALTHY: { value: 'triggerer' } } },
    });
    const id = created.body.data.deployment_id as string;
    expect((await ended(created.body.data.operation_id)).status).toBe('succeeded');
    const { key } = await createApiKey({ orgId: org, name: 'monitor', now: new Date() });

    const health = await dash('GET', `/deployments/${id}/health`, as('viewer'));
    expect(health.status).toBe(200);
    expect(health.body.data.status).toBe('degraded');
    expect(health.body.data.components.map((c: { name: string; status: string }) => `${c.name}:${c.status}`)).toEqual([
      'webserver:healthy',
      'scheduler:healthy',
      'dag_processor:healthy',
      'triggerer:unhealthy',
      'metadata_db:healthy',
    ]);
    expect(health.body.data).toEqual((await call('GET', `/deployments/${id}/health`, { key })).body.data);

    // A closed range answers the same at every request (decision 49), so both APIs' answers are equal.
    const end = new Date(Math.floor(Date.now() / 60_000) * 60_000).toISOString();
    const start = new Date(Date.parse(end) - 3_600_000).toISOString();
    const range = `start=${start}&end=${end}&metrics=http_requests,cpu_utilization`;
    const metrics = await dash('GET', `/deployments/${id}/metrics?${range}`, as('viewer'));
    expect(metrics.status).toBe(200);
    expect(metrics.body.data).toMatchObject({ start, end, period: 60 });
    expect(metrics.body.data.series.map((x: { metric: string; unit: string }) => [x.metric, x.unit])).toEqual([
      ['http_requests', 'count'],
      ['cpu_utilization', 'percent'],
    ]);
    expect(metrics.body.data).toEqual((await call('GET', `/deployments/${id}/metrics?${range}`, { key })).body.data);
    // The default is the last hour by the minute; a bad parameter is a 400 naming it, as on the public API.
    const latest = await dash('GET', `/deployments/${id}/metrics`, as('viewer'));
    expect({ period: latest.body.data.period, metrics: latest.body.data.series.length }).toEqual({ period: 60, metrics: 5 });
    const bad = await dash('GET', `/deployments/${id}/metrics?period=7&metrics=disk`, as('viewer'));
    expect({ status: bad.status, code: bad.body.error.code }).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toContain('period');

    for (const p of [`/deployments/${id}/health`, `/deployments/${id}/metrics`]) {
      const other = await dash('GET', p, as('other'));
      expect({ p, status: other.status, code: other.body.error.code }).toEqual({ p, status: 404, code: 'DEPLOYMENT_NOT_FOUND' });
      expect({ p, status: (await dash('GET', p, {})).status }).toEqual({ p, status: 401 });
      expect({ p, status: (await dash('POST', p, as('admin'))).status }).toEqual({ p, status: 405 });
    }
  });

  it('takes constructor and prototype as env names, and answers a __proto__ name at its path (decision 296)', async () => {
    const env = Object.fromEntries([['__proto__', { value: 'x' }]]);
    const refused = await dash('POST', '/deployments', as('admin'), { app_type: 'airflow', config: { env } });
    expect({ status: refused.status, error: refused.body.error }).toMatchObject({
      status: 400,
      error: { code: 'INVALID_REQUEST', details: [{ field: 'config.env.__proto__', issue: 'is a reserved name' }] },
    });
    const created = await dash('POST', '/deployments', as('admin'), {
      app_type: 'airflow',
      config: { env: { constructor: { value: 'c' }, prototype: { value: 'p' } } },
    });
    expect(created.status).toBe(202);
    const id = created.body.data.deployment_id as string;
    await ended(created.body.data.operation_id);
    expect((await dash('GET', `/deployments/${id}`, as('viewer'))).body.data.config.env).toEqual({
      constructor: { value: 'c', secret: false },
      prototype: { value: 'p', secret: false },
    });
    const patched = await dash('PATCH', `/deployments/${id}?dry_run=true`, as('admin'), { config: { env } });
    expect(patched.body.error?.details).toEqual([{ field: 'config.env.__proto__', issue: 'is a reserved name' }]);
  });

  it('refuses a viewer every change with 403, before looking at anything, and shows another organization none of it', async () => {
    const created = await dash('POST', '/deployments', as('admin'), { app_type: 'airflow' });
    const { deployment_id: id, operation_id: opId } = created.body.data;
    await ended(opId);
    const before = (await dash('GET', `/deployments/${id}`, as('viewer'))).body.data;
    const changes: [string, string, unknown?][] = [
      ['POST', '/deployments', { app_type: 'airflow' }],
      ['PATCH', `/deployments/${id}`, { config: { size: 'medium' } }],
      ['POST', `/deployments/${id}/rollback`, { revision: 1 }],
      ['DELETE', `/deployments/${id}`],
      ['POST', `/operations/${opId}/cancel`],
    ];
    for (const [method, p, body] of changes) {
      const r = await dash(method, p, as('viewer'), body);
      expect({ method, p, status: r.status, code: r.body.error.code }).toEqual({ method, p, status: 403, code: 'INSUFFICIENT_ROLE' });
      const other = await dash(method, p, as('other'), body);
      if (p !== '/deployments') expect({ method, p, status: other.status }).toEqual({ method, p, status: 404 });
    }
    expect((await dash('GET', `/deployments/${id}`, as('viewer'))).body.data).toEqual(before);
    expect((await dash('GET', `/deployments/${id}`, as('other'))).body.error.code).toBe('DEPLOYMENT_NOT_FOUND');
    expect((await dash('GET', `/deployments/${id}/revisions`, as('other'))).body.error.code).toBe('DEPLOYMENT_NOT_FOUND');
    // The other organization's own create lands in its organization, not this one.
    const theirs = await dash('POST', '/deployments', as('other'), { app_type: 'airflow', name: 'theirs' });
    expect(theirs.status).toBe(202);
    expect((await dash('GET', `/deployments/${theirs.body.data.deployment_id}`, as('admin'))).status).toBe(404);
    await ended(theirs.body.data.operation_id, 'other');
  });
});
