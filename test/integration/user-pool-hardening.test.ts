/**
 * The emulated user pool and key management, hardened: user names cannot reach an
 * object's prototype; failed sign-ins lock a user name out as Cognito does, known or not;
 * sign-ins hash off the event loop, unknown users' too; refresh tokens belong to a user's
 * sub and end with the user, a new password or a revocation; and key management refuses
 * a token whose user the pool no longer holds as the token says.
 */
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminUpdateUserAttributesCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { ORG_ATTRIBUTE, ROLE_ATTRIBUTE } from '../../contract/dashboard-users.js';
import { FREE_SIGN_IN_FAILURES, LOCAL_CLIENT_ID, LOCAL_USER_POOL_ID, LocalUserPool } from '../../local/user-pool.js';
import { type DashboardSession, TEST_PASSWORD as PASSWORD, startDashboardSession } from '../helpers/dashboard-session.js';

let session: DashboardSession;
const org = `org-${Date.now().toString(36)}`;
let serial = 0;
/** A fresh user of its own, so that lockouts and deletions touch no other test. */
async function newUser(role = 'admin', inOrg = org): Promise<string> {
  const email = `user${++serial}-${Date.now().toString(36)}@example.test`;
  await session.users(['create', '--org', inOrg, '--email', email, '--role', role, '--password', PASSWORD]);
  return email;
}
const signInWith = (USERNAME: string, PASSWORD: string) => session.initiateAuth('USER_PASSWORD_AUTH', { USERNAME, PASSWORD });
const refreshWith = (REFRESH_TOKEN: string) => session.initiateAuth('REFRESH_TOKEN_AUTH', { REFRESH_TOKEN });
const refused = (r: { status: number; body: any }) => ({ status: r.status, type: r.body.__type, message: r.body.message });

async function poolCall(target: string, input: unknown) {
  const res = await fetch(`${session.origin}/cognito/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': `AWSCognitoIdentityProviderService.${target}` },
    body: JSON.stringify(input),
  });
  return { status: res.status, body: (await res.json()) as any };
}

beforeAll(async () => {
  session = await startDashboardSession();
});
afterAll(() => session.close());

describe('user names', () => {
  it('cannot reach the prototype: __proto__, constructor and prototype are no users, and nothing else changes', async () => {
    for (const Username of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty']) {
      const set = await poolCall('AdminSetUserPassword', {
        UserPoolId: LOCAL_USER_POOL_ID,
        Username,
        Password: 'Polluted-pass-1',
        Permanent: true,
      });
      expect({ Username, ...refused(set) }).toEqual({
        Username,
        status: 400,
        type: 'UserNotFoundException',
        message: 'User does not exist.',
      });
      const create = await poolCall('AdminCreateUser', { UserPoolId: LOCAL_USER_POOL_ID, Username });
      expect({ Username, type: create.body.__type }).toEqual({ Username, type: 'InvalidParameterException' });
      expect((await signInWith(Username, 'Polluted-pass-1')).status).toBe(400);
    }
    // An attribute the schema does not have is refused, __proto__ included.
    const sneaky = await poolCall('AdminCreateUser', {
      UserPoolId: LOCAL_USER_POOL_ID,
      Username: 'sneaky@example.test',
      UserAttributes: [{ Name: '__proto__', Value: { [ORG_ATTRIBUTE]: org } }],
    });
    expect(sneaky.body.__type).toBe('InvalidParameterException');
    // A user made without a password has none to sign in with, and is not confirmed.
    await session.pool().send(
      new AdminCreateUserCommand({
        UserPoolId: LOCAL_USER_POOL_ID,
        Username: 'nopassword@example.test',
        MessageAction: 'SUPPRESS',
        UserAttributes: [
          { Name: ORG_ATTRIBUTE, Value: org },
          { Name: ROLE_ATTRIBUTE, Value: 'viewer' },
        ],
      }),
    );
    expect((await signInWith('nopassword@example.test', 'Polluted-pass-1')).status).toBe(400);
    const listed = JSON.parse((await session.users(['list', '--org', org, '--json']))[0]!) as { email: string; status: string }[];
    expect(listed.find((u) => u.email === 'nopassword@example.test')?.status).toBe('FORCE_CHANGE_PASSWORD');
    // Nothing reached the prototype every object of the process shares (strict bodies would refuse a "password" field).
    expect('password' in {}).toBe(false);
  });
});

describe('failed sign-ins', () => {
  it(`lock a user name out after ${FREE_SIGN_IN_FAILURES} failures, even for the right password, and leave other users alone`, async () => {
    const email = await newUser();
    for (let i = 0; i < FREE_SIGN_IN_FAILURES; i++)
      expect(refused(await signInWith(email, `Wrong-password-${i}`))).toEqual({
        status: 400,
        type: 'NotAuthorizedException',
        message: 'Incorrect username or password.',
      });
    expect(refused(await signInWith(email, PASSWORD))).toEqual({
      status: 400,
      type: 'NotAuthorizedException',
      message: 'Password attempts exceeded',
    });
    expect((await signInWith(await newUser(), PASSWORD)).status).toBe(200);
  });

  it('lock an unknown user name out the same way, so a lockout tells nothing about who exists', async () => {
    const unknown = `nobody-${Date.now().toString(36)}@example.test`;
    for (let i = 0; i < FREE_SIGN_IN_FAILURES; i++)
      expect(refused(await signInWith(unknown, PASSWORD)).message).toBe('Incorrect username or password.');
    expect(refused(await signInWith(unknown, PASSWORD)).message).toBe('Password attempts exceeded');
  });

  it('are counted until a success: one right password clears them', async () => {
    const email = await newUser();
    for (let i = 0; i < FREE_SIGN_IN_FAILURES - 1; i++) await signInWith(email, 'Wrong-password-1');
    expect((await signInWith(email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < FREE_SIGN_IN_FAILURES - 1; i++) await signInWith(email, 'Wrong-password-1');
    expect((await signInWith(email, PASSWORD)).status).toBe(200);
  });
});

describe('hashing', () => {
  /** Starts sign-ins on the pool, then notes when the event loop next turns: before any sign-in answers, if they hash off it. */
  async function order(users: string[]): Promise<string[]> {
    const pool = await LocalUserPool.open({ dataDir: null, tokenSeconds: 60 });
    const seen: string[] = [];
    const body = (USERNAME: string) =>
      Buffer.from(JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: LOCAL_CLIENT_ID, AuthParameters: { USERNAME, PASSWORD } }));
    const signIns = users.map((u) =>
      pool.handle('POST', '/', 'AWSCognitoIdentityProviderService.InitiateAuth', body(u)).then(() => seen.push('sign-in')),
    );
    const turned = new Promise<void>((resolve) =>
      setImmediate(() => {
        seen.push('event loop');
        resolve();
      }),
    );
    await Promise.all([...signIns, turned]);
    return seen;
  }

  it('runs scrypt off the event loop: other work goes on while sign-ins hash', async () => {
    // Unknown users: without a dummy hash they would answer at once, ahead of the event loop's next turn.
    const seen = await order(Array.from({ length: 8 }, (_, i) => `unknown${i}@example.test`));
    expect(seen[0]).toBe('event loop');
    expect(seen.filter((s) => s === 'sign-in')).toHaveLength(8);
  });
});

describe('refresh tokens', () => {
  it('belong to the user, not the email: a new user of a deleted one’s email in another organization cannot use them', async () => {
    const email = await newUser('admin');
    const old = (await signInWith(email, PASSWORD)).body.AuthenticationResult.RefreshToken as string;
    await session.users(['delete', email]);
    expect(refused(await refreshWith(old)).type).toBe('NotAuthorizedException');
    await session.users(['create', '--org', `${org}-other`, '--email', email, '--role', 'admin', '--password', PASSWORD]);
    expect(refused(await refreshWith(old))).toEqual({ status: 400, type: 'NotAuthorizedException', message: 'Invalid Refresh Token' });
    expect((await signInWith(email, PASSWORD)).status).toBe(200);
  });

  it('end with a new password', async () => {
    const email = await newUser();
    const old = (await signInWith(email, PASSWORD)).body.AuthenticationResult.RefreshToken as string;
    expect((await refreshWith(old)).status).toBe(200);
    const set = await poolCall('AdminSetUserPassword', {
      UserPoolId: LOCAL_USER_POOL_ID,
      Username: email,
      Password: 'Another-pass-2',
      Permanent: true,
    });
    expect(set.status).toBe(200);
    expect(refused(await refreshWith(old)).type).toBe('NotAuthorizedException');
  });

  it('end when revoked (sign-out), that one only: another session of the user still refreshes', async () => {
    const email = await newUser();
    const signedOut = (await signInWith(email, PASSWORD)).body.AuthenticationResult.RefreshToken as string;
    const other = (await signInWith(email, PASSWORD)).body.AuthenticationResult.RefreshToken as string;
    expect((await poolCall('RevokeToken', { ClientId: LOCAL_CLIENT_ID, Token: signedOut })).status).toBe(200);
    expect(refused(await refreshWith(signedOut)).type).toBe('NotAuthorizedException');
    expect((await refreshWith(other)).status).toBe(200);
    // Revoking again, or a token the pool never issued, is no error (RFC 7009); another client may revoke nothing.
    expect((await poolCall('RevokeToken', { ClientId: LOCAL_CLIENT_ID, Token: signedOut })).status).toBe(200);
    expect((await poolCall('RevokeToken', { ClientId: 'another-client', Token: other })).body.__type).toBe('ResourceNotFoundException');
    expect((await refreshWith(other)).status).toBe(200);
  });
});

describe('key management', () => {
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  it("refuses a deleted admin's token that has not expired, for creating and revoking keys alike", async () => {
    const email = await newUser('admin');
    const token = (await signInWith(email, PASSWORD)).body.AuthenticationResult.IdToken as string;
    const made = await session.send('POST', '/keys', bearer(token), { name: 'before' });
    expect(made.status).toBe(201);
    await session.pool().send(new AdminDeleteUserCommand({ UserPoolId: LOCAL_USER_POOL_ID, Username: email }));
    for (const [method, path, body] of [
      ['POST', '/keys', { name: 'after' }],
      ['DELETE', `/keys/${made.body.data.id}`, undefined],
    ] as const) {
      const r = await session.send(method, path, bearer(token), body);
      expect({ path, status: r.status, code: r.body.error?.code }).toEqual({ path, status: 401, code: 'INVALID_TOKEN' });
    }
    // The same email made again, in the same organization, is another user: the old token stays refused.
    await session.users(['create', '--org', org, '--email', email, '--role', 'admin', '--password', PASSWORD]);
    expect((await session.send('POST', '/keys', bearer(token), { name: 'after' })).status).toBe(401);
    // Reading needs no such check: the token is good for its hour where nothing can be made.
    expect((await session.send('GET', '/me', bearer(token))).status).toBe(200);
  });

  it('refuses a demoted admin’s token, and takes the fresh one with the new role as the role allows', async () => {
    const email = await newUser('admin');
    const first = await signInWith(email, PASSWORD);
    const token = first.body.AuthenticationResult.IdToken as string;
    await session.pool().send(
      new AdminUpdateUserAttributesCommand({
        UserPoolId: LOCAL_USER_POOL_ID,
        Username: email,
        UserAttributes: [{ Name: ROLE_ATTRIBUTE, Value: 'viewer' }],
      }),
    );
    const r = await session.send('POST', '/keys', bearer(token), { name: 'demoted' });
    expect({ status: r.status, code: r.body.error?.code }).toEqual({ status: 401, code: 'INVALID_TOKEN' });
    const fresh = (await refreshWith(first.body.AuthenticationResult.RefreshToken)).body.AuthenticationResult.IdToken as string;
    const again = await session.send('POST', '/keys', bearer(fresh), { name: 'demoted' });
    expect({ status: again.status, code: again.body.error?.code }).toEqual({ status: 403, code: 'INSUFFICIENT_ROLE' });
    // The organization is fixed, as on AWS.
    const moved = await poolCall('AdminUpdateUserAttributes', {
      UserPoolId: LOCAL_USER_POOL_ID,
      Username: email,
      UserAttributes: [{ Name: ORG_ATTRIBUTE, Value: `${org}-other` }],
    });
    expect(moved.body.__type).toBe('InvalidParameterException');
  });
});
