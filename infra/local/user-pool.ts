/**
 * A small emulation of the Cognito user-pool API the dashboard and the users CLI use,
 * so the same sign-in code runs locally and on AWS: InitiateAuth (USER_PASSWORD_AUTH,
 * REFRESH_TOKEN_AUTH), AdminCreateUser, AdminSetUserPassword, ListUsers and
 * AdminDeleteUser over Cognito's JSON protocol (POST with X-Amz-Target), and the pool's
 * JWKS at `/<pool id>/.well-known/jwks.json`. Tokens are RS256 JWTs with Cognito's
 * claims, signed with jose. Users, their scrypt password hashes, refresh-token hashes and
 * the signing key are kept owner-only under DATA_DIR, so they survive a restart.
 * It trusts its machine as DynamoDB Local does: it is served on loopback only.
 */
import { createHash, randomBytes, randomUUID, scryptSync, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import { DashboardRole, ORG_ATTRIBUTE, OrgId, ROLE_ATTRIBUTE } from '../../functions/core/dashboard-users.js';
import { passwordProblems, REFRESH_TOKEN_DAYS } from '../user-pool-settings.js';

export const LOCAL_USER_POOL_ID = 'us-east-1_LocalPool';
export const LOCAL_CLIENT_ID = 'localdashboardclient';
/** Where the local server mounts the emulation (Cognito's endpoint is a host root; here it is this path). */
export const USER_POOL_PATH = '/cognito';

interface StoredUser {
  username: string;
  sub: string;
  attributes: Record<string, string>;
  created_at: string;
  password?: { salt: string; hash: string };
}

interface PoolState {
  users: Record<string, StoredUser>;
  /** sha256 of each refresh token → whose it is, and until when. */
  refresh: Record<string, { username: string; expires_at: string }>;
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

function hashPassword(password: string, salt = randomBytes(16).toString('hex')) {
  return { salt, hash: scryptSync(password, salt, 32).toString('hex') };
}

function passwordMatches(password: string, stored: StoredUser['password']): boolean {
  if (!stored) return false;
  const given = Buffer.from(hashPassword(password, stored.salt).hash, 'hex');
  return timingSafeEqual(given, Buffer.from(stored.hash, 'hex'));
}

export interface LocalUserPoolOptions {
  /** Where users and the signing key are kept; null keeps them in memory (tests). */
  dataDir: string | null;
  /** The ID and access tokens' lifetime (Cognito's default is one hour; tests shorten it). */
  tokenSeconds: number;
}

export class LocalUserPool {
  private state: PoolState = { users: {}, refresh: {} };
  private readonly file: string | undefined;
  private key!: { kid: string; privateKey: CryptoKey; publicJwk: JWK };
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
    const dir = this.file && path.dirname(this.file);
    if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (this.file && existsSync(this.file)) this.state = JSON.parse(readFileSync(this.file, 'utf8')) as PoolState;
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
      privateKey: (await importJWK(privateJwk, 'RS256')) as CryptoKey,
      publicJwk: { kid, kty, n, e, alg, use },
    };
  }

  private save(): void {
    if (!this.file) return;
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.state), { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  /** Answers a request below USER_POOL_PATH; `subpath` is the rest of its path. */
  async handle(method: string, subpath: string, target: string | undefined, body: Buffer): Promise<PoolAnswer> {
    if (method === 'GET' && subpath === `/${LOCAL_USER_POOL_ID}/.well-known/jwks.json`)
      return { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ keys: [this.key.publicJwk] }) };
    if (method !== 'POST' || (subpath !== '/' && subpath !== ''))
      return this.error(new CognitoError('UnknownOperationException', 'Not found'), 404);
    try {
      const op = target?.replace(/^AWSCognitoIdentityProviderService\./, '') ?? '';
      const input = JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
      const out = await this.operation(op, input);
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
      case 'AdminCreateUser':
        return this.adminCreateUser(input);
      case 'AdminSetUserPassword':
        return this.adminSetUserPassword(input);
      case 'ListUsers':
        this.checkPool(input);
        return { Users: Object.values(this.state.users).map(userType) };
      case 'AdminDeleteUser':
        this.checkPool(input);
        delete this.state.users[this.user(input.Username).username];
        this.save();
        return {};
      default:
        throw new CognitoError('UnknownOperationException', `The emulated user pool does not implement ${op || 'that operation'}`);
    }
  }

  private checkPool(input: Record<string, unknown>): void {
    if (input.UserPoolId !== LOCAL_USER_POOL_ID)
      throw new CognitoError('ResourceNotFoundException', `User pool ${String(input.UserPoolId)} does not exist.`);
  }

  private user(username: unknown): StoredUser {
    const found = this.state.users[String(username).toLowerCase()];
    if (!found) throw new CognitoError('UserNotFoundException', 'User does not exist.');
    return found;
  }

  private adminCreateUser(input: Record<string, unknown>) {
    this.checkPool(input);
    const username = String(input.Username ?? '').toLowerCase();
    if (!/^[^@\s]+@[^@\s]+$/.test(username)) throw new CognitoError('InvalidParameterException', 'Username should be an email.');
    if (this.state.users[username]) throw new CognitoError('UsernameExistsException', 'An account with the given email already exists.');
    const attributes: Record<string, string> = { email: username, email_verified: 'true' };
    for (const a of (input.UserAttributes ?? []) as { Name: string; Value: string }[]) attributes[a.Name] = a.Value;
    // The same constraints the pool's custom attributes have on AWS (infra/aws/dashboard.ts).
    if (!OrgId.safeParse(attributes[ORG_ATTRIBUTE]).success)
      throw new CognitoError('InvalidParameterException', `${ORG_ATTRIBUTE} is invalid.`);
    if (!DashboardRole.safeParse(attributes[ROLE_ATTRIBUTE]).success)
      throw new CognitoError('InvalidParameterException', `${ROLE_ATTRIBUTE} is invalid.`);
    const user: StoredUser = { username, sub: randomUUID(), attributes, created_at: new Date().toISOString() };
    this.state.users[username] = user;
    this.save();
    return { User: userType(user) };
  }

  private adminSetUserPassword(input: Record<string, unknown>) {
    this.checkPool(input);
    const user = this.user(input.Username);
    const password = String(input.Password ?? '');
    const problems = passwordProblems(password);
    if (problems.length) throw new CognitoError('InvalidPasswordException', `Password does not conform to policy: ${problems.join('; ')}`);
    user.password = hashPassword(password);
    this.save();
    return {};
  }

  private async initiateAuth(input: Record<string, unknown>) {
    if (input.ClientId !== LOCAL_CLIENT_ID) throw new CognitoError('ResourceNotFoundException', 'User pool client does not exist.');
    const params = (input.AuthParameters ?? {}) as Record<string, string>;
    const now = Date.now();
    if (input.AuthFlow === 'USER_PASSWORD_AUTH') {
      // One message for an unknown user and a wrong password, as Cognito's "prevent user existence errors".
      const user = this.state.users[String(params.USERNAME ?? '').toLowerCase()];
      if (!user || !passwordMatches(String(params.PASSWORD ?? ''), user.password))
        throw new CognitoError('NotAuthorizedException', 'Incorrect username or password.');
      const refreshToken = randomBytes(48).toString('base64url');
      for (const [hash, held] of Object.entries(this.state.refresh))
        if (Date.parse(held.expires_at) <= now) delete this.state.refresh[hash];
      this.state.refresh[sha256(refreshToken)] = {
        username: user.username,
        expires_at: new Date(now + REFRESH_TOKEN_DAYS * 86_400_000).toISOString(),
      };
      this.save();
      return { ChallengeParameters: {}, AuthenticationResult: { ...(await this.tokens(user, now)), RefreshToken: refreshToken } };
    }
    if (input.AuthFlow === 'REFRESH_TOKEN_AUTH' || input.AuthFlow === 'REFRESH_TOKEN') {
      const held = this.state.refresh[sha256(String(params.REFRESH_TOKEN ?? ''))];
      const user = held && Date.parse(held.expires_at) > now ? this.state.users[held.username] : undefined;
      if (!user) throw new CognitoError('NotAuthorizedException', 'Invalid Refresh Token');
      return { ChallengeParameters: {}, AuthenticationResult: await this.tokens(user, now) };
    }
    throw new CognitoError('InvalidParameterException', `AuthFlow ${String(input.AuthFlow)} is not enabled for this client.`);
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
