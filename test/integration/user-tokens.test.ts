/**
 * adapters/auth/user-tokens.ts against a JWKS served on loopback: what it takes (an RS256
 * ID token of the pool, for the dashboard's client, in its lifetime) and every way a token
 * can fall short of that. Only a token the pool signed is ever told apart as expired, and
 * a refusal logs why, never the token.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { verifyUserToken } from '../../functions/adapters/auth/user-tokens.js';
import { logged } from '../helpers/middleware-request.js';

const CLIENT_ID = 'dashboard-client';
const ORG = 'org_1';
let server: http.Server;
let issuer: string;
let pool: CryptoKeyPair;
let jwksRequests = 0;
/** What the JWKS lists: the pool's key, until a test rotates it. */
let served: object[] = [];

beforeAll(async () => {
  pool = await generateKeyPair('RS256', { extractable: true });
  served = [{ ...(await exportJWK(pool.publicKey)), kid: 'pool-key', use: 'sig', alg: 'RS256' }];
  server = http.createServer((req, res) => {
    jwksRequests++;
    if (req.url !== '/pool/.well-known/jwks.json') return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pool`;
  // config() is read at first use, which is the first verification below.
  process.env.DASHBOARD_TOKEN_ISSUER = issuer;
  process.env.DASHBOARD_CLIENT_ID = CLIENT_ID;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const CLAIMS = { sub: 'user-1', email: 'admin@example.test', 'custom:org_id': ORG, 'custom:role': 'admin', token_use: 'id' };

async function token(
  claims: JWTPayload = {},
  {
    key = pool.privateKey,
    kid = 'pool-key',
    expiresIn = '1h',
    alg = 'RS256',
  }: { key?: CryptoKey; kid?: string; expiresIn?: string | number; alg?: string } = {},
) {
  return new SignJWT({ ...CLAIMS, iss: issuer, aud: CLIENT_ID, ...claims })
    .setProtectedHeader({ alg, kid })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(key);
}

const refusal = async (t: string) => {
  const { result, lines } = await logged(() =>
    verifyUserToken(t).then(
      () => undefined,
      (e: { code?: string }) => e.code,
    ),
  );
  // Neither the token nor its signature (where it has one) is logged.
  expect(JSON.stringify(lines)).not.toContain(t.split('.')[2] || t);
  return { code: result, reasons: lines.filter((l) => l.message === 'dashboard token refused').map((l) => l.reason) };
};

it("takes the pool's ID token for the dashboard's client and reads the user from it", async () => {
  await expect(verifyUserToken(await token())).resolves.toEqual({ sub: 'user-1', email: 'admin@example.test', orgId: ORG, role: 'admin' });
});

it('refuses a token of another key, issuer, audience or use, or one not yet valid, with INVALID_TOKEN and the reason logged', async () => {
  const other = await generateKeyPair('RS256');
  const t = await token();
  const [head, body] = t.split('.');
  const tampered = `${head}.${Buffer.from(JSON.stringify({ ...CLAIMS, 'custom:role': 'admin', 'custom:org_id': 'org_2' })).toString('base64url')}.${t.split('.')[2]}`;
  const cases: [string, string][] = [
    [await token({}, { key: other.privateKey }), 'signature'],
    [tampered, 'signature'],
    [await token({}, { kid: 'not-the-pool-key' }), 'unknown key id'],
    [await token({ iss: 'https://cognito-idp.us-east-1.amazonaws.com/other' }), 'issuer'],
    [await token({ aud: 'another-client' }), 'audience'],
    [await token({ token_use: 'access' }), 'not an ID token'],
    [await token({ nbf: Math.floor(Date.now() / 1000) + 3600 }), 'nbf in the future'],
    [`${head}.${body}.`, 'signature'],
    [`${Buffer.from('{"alg":"none","kid":"pool-key"}').toString('base64url')}.${body}.`, 'algorithm'],
    [`${head}.bm90IGpzb24.${t.split('.')[2]}`, 'malformed'],
    ['a.b', 'malformed'],
  ];
  for (const [candidate, reason] of cases) {
    expect({ reason, ...(await refusal(candidate)) }).toEqual({ reason, code: 'INVALID_TOKEN', reasons: [reason] });
  }
});

it('refuses a token signed with HS256 under the public key as the secret, never trying another algorithm', async () => {
  const jwk = await exportJWK(pool.publicKey);
  const secret = new TextEncoder().encode(JSON.stringify(jwk));
  const forged = await new SignJWT(CLAIMS)
    .setProtectedHeader({ alg: 'HS256', kid: 'pool-key' })
    .setIssuer(issuer)
    .setAudience(CLIENT_ID)
    .setExpirationTime('1h')
    .sign(secret);
  expect(await refusal(forged)).toEqual({ code: 'INVALID_TOKEN', reasons: ['algorithm'] });
});

it("answers TOKEN_EXPIRED only for the pool's own token past its lifetime; an expired forgery is INVALID_TOKEN", async () => {
  const past = Math.floor(Date.now() / 1000) - 60;
  expect((await refusal(await token({}, { expiresIn: past }))).code).toBe('TOKEN_EXPIRED');
  const other = await generateKeyPair('RS256');
  expect((await refusal(await token({}, { key: other.privateKey, expiresIn: past }))).code).toBe('INVALID_TOKEN');
});

it('fetches the JWKS once, and again for an unknown key id at most once a minute', async () => {
  const before = jwksRequests;
  for (let i = 0; i < 5; i++) await verifyUserToken(await token());
  for (let i = 0; i < 5; i++) await refusal(await token({}, { kid: `unknown-${i}` }));
  expect(jwksRequests - before).toBe(0);
  // A minute on, an unknown key id (a key the pool rotated in) sends for the JWKS once more.
  const later = Date.now() + 61_000;
  jest.spyOn(Date, 'now').mockReturnValue(later);
  for (let i = 0; i < 5; i++) await refusal(await token({}, { kid: `rotated-${i}` }));
  expect(jwksRequests - before).toBe(1);
});

it('trusts a key the pool has retired no longer, once it fetches the JWKS again', async () => {
  const rotated = await generateKeyPair('RS256', { extractable: true });
  const retired = await token();
  served = [{ ...(await exportJWK(rotated.publicKey)), kid: 'rotated-key', use: 'sig', alg: 'RS256' }];
  // Two minutes on (past the refetch interval of the test above), a token of the new key sends for the JWKS.
  jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 122_000);
  await expect(verifyUserToken(await token({}, { key: rotated.privateKey, kid: 'rotated-key' }))).resolves.toMatchObject({ orgId: ORG });
  expect(await refusal(retired)).toEqual({ code: 'INVALID_TOKEN', reasons: ['unknown key id'] });
});
