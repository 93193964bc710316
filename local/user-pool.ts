/**
 * A small emulation of the Cognito user-pool API the dashboard, its API and the users CLI
 * use, so the same sign-in code runs locally and on AWS: InitiateAuth (USER_PASSWORD_AUTH,
 * REFRESH_TOKEN_AUTH), RevokeToken, AdminCreateUser, AdminSetUserPassword, AdminGetUser,
 * AdminUpdateUserAttributes, ListUsers and AdminDeleteUser over Cognito's JSON protocol
 * (POST with X-Amz-Target), with Cognito's lockout after failed sign-ins, and the pool's
 * JWKS at `/<pool id>/.well-known/jwks.json`. Tokens are RS256 JWTs with Cognito's
 * claims, signed with jose. Users, their scrypt password hashes, refresh-token hashes and
 * the signing key are kept owner-only under DATA_DIR, so they survive a restart.
 * It trusts its machine as DynamoDB Local does: it is served on loopback only.
 */
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual, type webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import * as z from 'zod/mini';
import { DashboardRole, ORG_ATTRIBUTE, OrgId, ROLE_ATTRIBUTE } from '../contract/dashboard-users.js';
import { passwordProblems, REFRESH_TOKEN_DAYS } from '../infra/user-pool-settings.js';
import { REFUSED, signedBy } from './engine-credentials.js';

export const LOCAL_USER_POOL_ID = 'us-east-1_LocalPool';
export const LOCAL_CLIENT_ID = 'localdashboardclient';
/** Where the local server mounts the emulation (Cognito's endpoint is a host root; here it is this path). */
export const USER_POOL_PATH = '/cognito';

/**
 * Cognito's lockout: five failed sign-ins are free, then each failure locks the user name
 * out for twice as long as the last (1 s, 2 s, ... up to 15 minutes); attempts during a
 * lockout are not checked, and 15 minutes without a failure forgets them.
 */
export const FREE_SIGN_IN_FAILURES = 5;
const FIRST_LOCKOUT_MS = 1000;
const LONGEST_LOCKOUT_MS = 15 * 60_000;
const FORGET_FAILURES_MS = 15 * 60_000;
/** User names with failures remembered at most (the oldest are forgotten first): memory stays bounded. */
const REMEMBERED_FAILURES = 10_000;

/** The pool's user names are emails (the pool on AWS signs in by email). */
const USERNAME = /^[^@\s]+@[^@\s]+$/;
/** The attributes the pool's schema has (infra/aws/dashboard.ts); Cognito refuses others. */
const ATTRIBUTES = ['email', 'email_verified', ORG_ATTRIBUTE, ROLE_ATTRIBUTE];
/** Attributes nobody may change once the user exists (the organization is immutable on AWS). */
const IMMUTABLE_ATTRIBUTES = ['email', ORG_ATTRIBUTE];

const PasswordHash = z.object({ salt: z.string(), hash: z.string() });
const StoredUser = z.object({
  username: z.string(),
  sub: z.string(),
  attributes: z.record(z.string(), z.string()),
  created_at: z.string(),
  password: z.optional(PasswordHash),
});
type StoredUser = z.infer<typeof StoredUser>;
/** A refresh token's holder (the user's sub, never the email another user may later have) and its end. */
const RefreshGrant = z.object({ sub: z.string(), expires_at: z.string() });
type RefreshGrant = z.infer<typeof RefreshGrant>;
/** The file under DATA_DIR. A file from before refresh tokens named their user's sub loses its sessions, not its users. */
const PoolFile = z.object({
  users: z.union([
    z.array(StoredUser),
    z.pipe(
      z.record(z.string(), StoredUser),
      z.transform((u) => Object.values(u)),
    ),
  ]),
  refresh: z.catch(z.array(z.tuple([z.string(), RefreshGrant])), []),
});

interface Failures {
  count: number;
  lastAt: number;
  lockedUntil: number;
}

export interface PoolAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A Cognito error, in the JSON protocol's shape. */
class CognitoError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** scrypt on libuv's thread pool: a sign-in hashing does not hold up every other request of the process. */
const scryptHex = (password: string, salt: string) =>
  new Promise<string>((resolve, reject) => scrypt(password, salt, 32, (e, key) => (e ? reject(e) : resolve(key.toString('hex')))));

async function hashPassword(password: string): Promise<z.infer<typeof PasswordHash>> {
  const salt = randomBytes(16).toString('hex');
  return { salt, hash: await scryptHex(password, salt) };
}

async function passwordMatches(password: string, stored: z.infer<typeof PasswordHash>): Promise<boolean> {
  const given = Buffer.from(await scryptHex(password, stored.salt), 'hex');
  return timingSafeEqual(given, Buffer.from(stored.hash, 'hex'));
}

export interface LocalUserPoolOptions {
  /** Where users and the signing key are kept; null keeps them in memory (tests). */
  dataDir: string | null;
  /** The ID and access tokens' lifetime (Cognito's default is one hour; tests shorten it). */
  tokenSeconds: number;
  /** When set, the admin actions (Admin*, ListUsers) answer only requests signed by this access key id (decision 236). */
  adminAccessKeyId?: string;
}

export class LocalUserPool {
  /** By user name (the lower-cased email); Maps, so no name can reach an object's prototype. */
  private readonly users = new Map<string, StoredUser>();
  /** sha256 of each refresh token → whose it is, and until when. */
  private readonly refresh = new Map<string, RefreshGrant>();
  /** Failed sign-ins by the user name tried, known or not (a lockout must not tell which exist). */
  private readonly failures = new Map<string, Failures>();
  /** What an unknown user's password is checked against, so that it costs what a known user's does. */
  private dummyPassword!: z.infer<typeof PasswordHash>;
  private readonly file: string | undefined;
  private key!: { kid: string; privateKey: webcrypto.CryptoKey; publicJwk: JWK };
  /** The pool's issuer URL, known once the server listens. */
  issuer = '';

  private constructor(private readonly options: LocalUserPoolOptions) {
    this.file = options.dataDir ? path.join(options.dataDir, 'user-pool', 'users.json') : undefined;
  }

  static async open(options: LocalUserPoolOptions): Promise<LocalUserPool> {
    const pool = new LocalUserPool(options);
    await pool.load();
    return pool;
  }

  private async load(): Promise<void> {
    this.dummyPassword = await hashPassword(randomBytes(16).toString('hex'));
    const dir = this.file && path.dirname(this.file);
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (this.file && existsSync(this.file)) {
      const saved = PoolFile.parse(JSON.parse(readFileSync(this.file, 'utf8')));
      for (const u of saved.users) this.users.set(u.username, u);
      for (const [hash, grant] of saved.refresh) this.refresh.set(hash, grant);
    }
    const keyFile = dir && path.join(dir, 'signing-key.json');
    let privateJwk: JWK;
    if (keyFile && existsSync(keyFile)) privateJwk = JSON.parse(readFileSync(keyFile, 'utf8')) as JWK;
    else {
      const pair = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
      privateJwk = { ...(await exportJWK(pair.privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
      if (keyFile) writeFileSync(keyFile, JSON.stringify(privateJwk), { mode: 0o600 });
    }
    const { kid, kty, n, e, alg, use } = privateJwk;
    this.key = {
      kid: String(kid),
      privateKey: (await importJWK(privateJwk, 'RS256')) as webcrypto.CryptoKey,
      publicJwk: { kid, kty, n, e, alg, use },
    };
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify({ users: [...this.users.values()], refresh: [...this.refresh] }), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  /** Answers a request below USER_POOL_PATH; `subpath` is the rest of its path. */
  async handle(method: string, subpath: string, target: string | undefined, body: Buffer, authorization?: string): Promise<PoolAnswer> {
    if (method === 'GET' && subpath === `/${LOCAL_USER_POOL_ID}/.well-known/jwks.json`)
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ keys: [this.key.publicJwk] }) };
    if (method !== 'POST' || (subpath !== '/' && subpath !== ''))
      return this.error(new CognitoError('UnknownOperationException', 'Not found'), 404);
    try {
      const op = target?.replace(/^AWSCognitoIdentityProviderService\./, '') ?? '';
      // Sign-in and token revocation are public, as on Cognito; what an administrator does needs the stack's credentials.
      const admin = op.startsWith('Admin') || op === 'ListUsers';
      const key = this.options.adminAccessKeyId;
      if (admin && key && !signedBy(authorization, key)) return this.error(new CognitoError(REFUSED.__type, REFUSED.message), 403);
      const input = JSON.parse(body.toString('utf8') || '{}') as unknown;
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        throw new CognitoError('SerializationException', 'The body is not a JSON object');
      const out = await this.operation(op, input as Record<string, unknown>);
      return { status: 200, headers: { 'Content-Type': 'application/x-amz-json-1.1' }, body: JSON.stringify(out) };
    } catch (e) {
      if (e instanceof CognitoError) return this.error(e, 400);
      if (e instanceof SyntaxError) return this.error(new CognitoError('SerializationException', 'The body is not JSON'), 400);
      throw e;
    }
  }

  private error(e: CognitoError, status: number): PoolAnswer {
    return {
      status,
      headers: { 'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-ErrorType': e.type },
      body: JSON.stringify({ __type: e.type, message: e.message }),
    };
  }

  private async operation(op: string, input: Record<string, unknown>): Promise<unknown> {
    switch (op) {
      case 'InitiateAuth':
        return this.initiateAuth(input);
      case 'RevokeToken':
        return this.revokeToken(input);
      case 'AdminCreateUser':
        return this.adminCreateUser(input);
      case 'AdminSetUserPassword':
        return this.adminSetUserPassword(input);
      case 'AdminGetUser': {
        this.checkPool(input);
        const { Attributes, ...user } = userType(this.user(input.Username));
        return { ...user, UserAttributes: Attributes };
      }
      case 'AdminUpdateUserAttributes':
        return this.adminUpdateUserAttributes(input);
      case 'ListUsers':
        this.checkPool(input);
        return { Users: [...this.users.values()].map(userType) };
      case 'AdminDeleteUser': {
        this.checkPool(input);
        const user = this.user(input.Username);
        this.users.delete(user.username);
        this.endSessions(user.sub);
        this.save();
        return {};
      }
      default:
        throw new CognitoError('UnknownOperationException', `The emulated user pool does not implement ${op || 'that operation'}`);
    }
  }

  private checkPool(input: Record<string, unknown>): void {
    if (input.UserPoolId !== LOCAL_USER_POOL_ID)
      throw new CognitoError('ResourceNotFoundException', `User pool ${String(input.UserPoolId)} does not exist.`);
  }

  private checkClient(input: Record<string, unknown>): void {
    if (input.ClientId !== LOCAL_CLIENT_ID) throw new CognitoError('ResourceNotFoundException', 'User pool client does not exist.');
  }

  private user(username: unknown): StoredUser {
    const found = typeof username === 'string' ? this.users.get(username.toLowerCase()) : undefined;
    if (!found) throw new CognitoError('UserNotFoundException', 'User does not exist.');
    return found;
  }

  /** Ends every session of a user: their refresh tokens no longer refresh. */
  private endSessions(sub: string): void {
    for (const [hash, grant] of this.refresh) if (grant.sub === sub) this.refresh.delete(hash);
  }

  /** The attributes a request names, each one the schema has, with a string value. */
  private attributesOf(input: Record<string, unknown>): Record<string, string> {
    const given = input.UserAttributes ?? [];
    if (!Array.isArray(given)) throw new CognitoError('InvalidParameterException', 'UserAttributes must be a list.');
    const out: Record<string, string> = {};
    for (const a of given as { Name?: unknown; Value?: unknown }[]) {
      if (typeof a?.Name !== 'string' || !ATTRIBUTES.includes(a.Name) || typeof a.Value !== 'string')
        throw new CognitoError('InvalidParameterException', `Attribute does not exist in the schema: ${String(a?.Name)}`);
      out[a.Name] = a.Value;
    }
    return out;
  }

  /** The same constraints the pool's custom attributes have on AWS (infra/aws/dashboard.ts). */
  private checkPlacement(attributes: Record<string, string>): void {
    if (!OrgId.safeParse(attributes[ORG_ATTRIBUTE]).success)
      throw new CognitoError('InvalidParameterException', `${ORG_ATTRIBUTE} is invalid.`);
    if (!DashboardRole.safeParse(attributes[ROLE_ATTRIBUTE]).success)
      throw new CognitoError('InvalidParameterException', `${ROLE_ATTRIBUTE} is invalid.`);
  }

  private adminCreateUser(input: Record<string, unknown>) {
    this.checkPool(input);
    const username = String(input.Username ?? '').toLowerCase();
    if (!USERNAME.test(username)) throw new CognitoError('InvalidParameterException', 'Username should be an email.');
    if (this.users.has(username)) throw new CognitoError('UsernameExistsException', 'An account with the given email already exists.');
    const attributes = { email: username, email_verified: 'true', ...this.attributesOf(input) };
    this.checkPlacement(attributes);
    const user: StoredUser = { username, sub: randomUUID(), attributes, created_at: new Date().toISOString() };
    this.users.set(username, user);
    this.save();
    return { User: userType(user) };
  }

  private adminUpdateUserAttributes(input: Record<string, unknown>) {
    this.checkPool(input);
    const user = this.user(input.Username);
    const changes = this.attributesOf(input);
    for (const name of IMMUTABLE_ATTRIBUTES)
      if (name in changes && changes[name] !== user.attributes[name])
        throw new CognitoError('InvalidParameterException', `Cannot modify an immutable attribute: ${name}`);
    const attributes = { ...user.attributes, ...changes };
    this.checkPlacement(attributes);
    user.attributes = attributes;
    this.save();
    return {};
  }

  private async adminSetUserPassword(input: Record<string, unknown>) {
    this.checkPool(input);
    const user = this.user(input.Username);
    const password = String(input.Password ?? '');
    const problems = passwordProblems(password);
    if (problems.length) throw new CognitoError('InvalidPasswordException', `Password does not conform to policy: ${problems.join('; ')}`);
    user.password = await hashPassword(password);
    // A new password ends the sessions the old one opened.
    this.endSessions(user.sub);
    this.failures.delete(user.username);
    this.save();
    return {};
  }

  /** Whether the password is the user's, counting failures per user name and refusing one that is locked out. */
  private async checkPassword(username: string, password: string, now: number): Promise<StoredUser | undefined> {
    const failed = this.failures.get(username);
    if (failed && now - failed.lastAt > FORGET_FAILURES_MS) this.failures.delete(username);
    else if (failed && now < failed.lockedUntil) throw new CognitoError('NotAuthorizedException', 'Password attempts exceeded');
    const user = this.users.get(username);
    // An unknown user, or one without a password, is checked against a dummy: it answers as slowly as a wrong password.
    const matches = await passwordMatches(password, user?.password ?? this.dummyPassword);
    if (user?.password && matches) {
      this.failures.delete(username);
      return user;
    }
    const count = (this.failures.get(username)?.count ?? 0) + 1;
    const lockout =
      count < FREE_SIGN_IN_FAILURES ? 0 : Math.min(FIRST_LOCKOUT_MS * 2 ** (count - FREE_SIGN_IN_FAILURES), LONGEST_LOCKOUT_MS);
    this.failures.delete(username);
    this.failures.set(username, { count, lastAt: now, lockedUntil: now + lockout });
    if (this.failures.size > REMEMBERED_FAILURES) this.failures.delete(this.failures.keys().next().value!);
    return undefined;
  }

  private async initiateAuth(input: Record<string, unknown>) {
    this.checkClient(input);
    const params = (input.AuthParameters ?? {}) as Record<string, unknown>;
    const now = Date.now();
    if (input.AuthFlow === 'USER_PASSWORD_AUTH') {
      // One message for an unknown user and a wrong password, as Cognito's "prevent user existence errors".
      const user = await this.checkPassword(String(params.USERNAME ?? '').toLowerCase(), String(params.PASSWORD ?? ''), now);
      if (!user) throw new CognitoError('NotAuthorizedException', 'Incorrect username or password.');
      const refreshToken = randomBytes(48).toString('base64url');
      for (const [hash, grant] of this.refresh) if (Date.parse(grant.expires_at) <= now) this.refresh.delete(hash);
      this.refresh.set(sha256(refreshToken), {
        sub: user.sub,
        expires_at: new Date(now + REFRESH_TOKEN_DAYS * 86_400_000).toISOString(),
      });
      this.save();
      return { ChallengeParameters: {}, AuthenticationResult: { ...(await this.tokens(user, now)), RefreshToken: refreshToken } };
    }
    if (input.AuthFlow === 'REFRESH_TOKEN_AUTH' || input.AuthFlow === 'REFRESH_TOKEN') {
      const grant = this.refresh.get(sha256(String(params.REFRESH_TOKEN ?? '')));
      const user = grant && Date.parse(grant.expires_at) > now ? [...this.users.values()].find((u) => u.sub === grant.sub) : undefined;
      if (!user) throw new CognitoError('NotAuthorizedException', 'Invalid Refresh Token');
      return { ChallengeParameters: {}, AuthenticationResult: await this.tokens(user, now) };
    }
    throw new CognitoError('InvalidParameterException', `AuthFlow ${String(input.AuthFlow)} is not enabled for this client.`);
  }

  /** Sign-out: the refresh token no longer refreshes. Like Cognito (and RFC 7009), a token it does not know is no error. */
  private revokeToken(input: Record<string, unknown>) {
    this.checkClient(input);
    if (this.refresh.delete(sha256(String(input.Token ?? '')))) this.save();
    return {};
  }

  /** An ID and an access token with the claims Cognito puts in them. */
  private async tokens(user: StoredUser, nowMs: number) {
    const iat = Math.floor(nowMs / 1000);
    const exp = iat + this.options.tokenSeconds;
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ ...claims, sub: user.sub, iss: this.issuer, iat, exp, auth_time: iat, jti: randomUUID(), origin_jti: randomUUID() })
        .setProtectedHeader({ alg: 'RS256', kid: this.key.kid })
        .sign(this.key.privateKey);
    const idToken = await sign({
      aud: LOCAL_CLIENT_ID,
      token_use: 'id',
      'cognito:username': user.username,
      ...user.attributes,
      email_verified: user.attributes.email_verified === 'true',
    });
    const accessToken = await sign({
      client_id: LOCAL_CLIENT_ID,
      token_use: 'access',
      scope: 'aws.cognito.signin.user.admin',
      username: user.username,
    });
    return { IdToken: idToken, AccessToken: accessToken, ExpiresIn: this.options.tokenSeconds, TokenType: 'Bearer' };
  }
}

const userType = (u: StoredUser) => ({
  Username: u.username,
  Attributes: [{ Name: 'sub', Value: u.sub }, ...Object.entries(u.attributes).map(([Name, Value]) => ({ Name, Value }))],
  UserCreateDate: Date.parse(u.created_at) / 1000,
  Enabled: true,
  UserStatus: u.password ? 'CONFIRMED' : 'FORCE_CHANGE_PASSWORD',
});
