/**
 * The secrets scan that global-teardown.cjs runs over every log line of a test run
 * (test/helpers/log-scan.ts): it finds each kind of secret planted in a log line, shows
 * none of it, lets through what the service does log about keys (ids, hints), and
 * fails a whole-suite run that captured too little to mean anything.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SignJWT } from 'jose';
import { newWebhookSecret } from '../../contract/webhook-signature.js';
import { generateKey, hashKey, KEY_PREFIX } from '../../functions/core/api-keys.js';
import { generatePassword } from '../../functions/core/app-user-password.js';
import { aesSealer } from '../../local/aes-sealer.js';
import {
  APP_PASSWORD_PREFIX,
  ENV_SECRET_PREFIX,
  isWholeSuite,
  LANE_FLOORS,
  registerCanary,
  registeredCanaries,
  scanLine,
  scanLogDir,
  verdict,
} from '../helpers/log-scan.js';

const made = generateKey(
  { orgId: 'org-scan', name: 'scan', now: new Date('2026-11-23T10:00:00.000Z') },
  Buffer.from(process.env.API_KEY_SECRET ?? '', 'base64'),
);
const { key, record } = made;

/** A log line as functions/lib/logger.ts writes it, with the request's keys and one extra field. */
const line = (extra: Record<string, unknown>) =>
  JSON.stringify({
    level: 'INFO',
    message: 'request',
    timestamp: '2026-11-23T10:00:00.000Z',
    service: 'deployment-management-api',
    request_id: 'req_5f0c2a9e4b7d4c1e9a3b6d8f0e2c4a6b',
    route: 'GET /api/v1/key',
    key_id: record.id,
    org_id: record.org_id,
    ...extra,
  });

const patternsIn = (text: string) => [...new Set(scanLine(text).map((f) => f.pattern))].sort();

describe('each kind of secret planted in a log line is found', () => {
  it('API keys: whole, without their prefix, and anything sent as one', () => {
    expect(patternsIn(line({ key }))).toEqual(['API key', 'API key token']);
    expect(patternsIn(line({ token: key.slice(KEY_PREFIX.length) }))).toEqual(['API key token']);
    // A value sent in X-API-Key that is no key at all is still the caller's credential.
    expect(patternsIn(line({ header: `${KEY_PREFIX}not-even-base62` }))).toEqual(['API key']);
  });

  it('key hashes, as stored (KEY#<hash>) or alone', () => {
    expect(patternsIn(line({ pk: `KEY#${hashKey(key)}` }))).toEqual(['key hash (SHA-256 hex)']);
    expect(patternsIn(line({ hash: hashKey(key).toUpperCase() }))).toEqual(['key hash (SHA-256 hex)']);
  });

  it('webhook secrets, with or without whsec_, the sealing key, and a sealed secret', async () => {
    const secret = newWebhookSecret();
    expect(patternsIn(line({ secret }))).toEqual(['32 bytes in base64 (webhook secret or sealing key)', 'webhook secret']);
    expect(patternsIn(line({ secret: secret.slice('whsec_'.length) }))).toEqual(['32 bytes in base64 (webhook secret or sealing key)']);
    expect(patternsIn(`sealing with ${process.env.WEBHOOK_SECRET_KEY}`)).toEqual(['32 bytes in base64 (webhook secret or sealing key)']);
    const sealed = await aesSealer(process.env.WEBHOOK_SECRET_KEY!).seal(secret, {
      purpose: 'delivery',
      orgId: 'org-scan',
      recordId: 'wh_1',
    });
    expect(patternsIn(line({ secret_sealed: sealed }))).toEqual(['sealed secret']);
    // The KMS forms, and the ones sealed before the record was bound (still in tables).
    for (const legacy of ['v1:', 'kms:', 'kms2:'])
      expect(patternsIn(line({ secret_sealed: sealed.replace('v2:', legacy) }))).toEqual(['sealed secret']);
  });

  it("deployments' env secret values the tests set, and their sealed form", () => {
    expect(scanLine(line({ env: { DB_PASSWORD: { value: `${ENV_SECRET_PREFIX}hunter2` } } })).map((f) => f.pattern)).toEqual([
      'env secret value',
    ]);
    expect(scanLine(line({ sealed: `v2:${'A'.repeat(40)}` })).map((f) => f.pattern)).toContain('sealed secret');
    expect(scanLine(line({ env: { DB_PASSWORD: { secret: true } } }))).toEqual([]);
  });

  it('Authorization values, the dashboard tokens and refresh tokens, and credential headers logged whole', async () => {
    const jwt = await new SignJWT({ sub: 'user-1', 'custom:org_id': 'org-scan' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(randomBytes(32));
    expect(patternsIn(line({ authorization: `Bearer ${jwt}` }))).toEqual(['Authorization value', 'JWT', 'credential header']);
    expect(patternsIn(line({ id_token: jwt }))).toEqual(['JWT']);
    expect(patternsIn(line({ auth: 'Basic dXNlcjpwYXNzd29yZA==' }))).toEqual(['Authorization value']);
    expect(patternsIn(line({ headers: { 'X-API-Key': 'short' } }))).toEqual(['credential header']);
    expect(patternsIn(line({ refresh: randomBytes(48).toString('base64url') }))).toEqual(['refresh token']);
  });

  it('reports where and what, never the secret: four characters and its length', () => {
    const [finding] = scanLine(`x-api-key: ${key}`).filter((f) => f.pattern === 'API key');
    expect(finding).toEqual({ pattern: 'API key', masked: `svc_…(${key.length} characters)` });
    for (const f of scanLine(line({ key, hash: hashKey(key) }))) {
      expect(f.masked).not.toContain(key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 8));
      expect(f.masked).not.toContain(hashKey(key).slice(4, 12));
    }
  });
});

describe('what the service does log passes', () => {
  it('key ids, hints, organizations, request, operation, webhook and event ids, timestamps, errors and their stacks', () => {
    const ordinary = [
      line({ status: 200, duration_ms: 3, hint: record.hint, function_request_id: 'fca10165-8fe1-43f2-b91d-55ed04b0d20b' }),
      line({
        message: 'webhook delivery failed',
        webhook_id: 'wh_3f9a2c7e1b5d4a8c9e0f',
        event_id: 'evt_01JD4Z8N6Q2W3E4R5T6Y7U8I9O',
        status: 503,
      }),
      line({ message: 'workflow step', step: 'startPhase', operation_id: 'op_7c9e6679-7425-40de-944b-e07fc1f90ae7', duration_ms: 12 }),
      line({
        level: 'ERROR',
        message: 'request failed',
        error: { name: 'Error', message: 'boom', stack: 'Error: boom\n    at handler (/var/task/index.mjs:1:2345)' },
      }),
      'arn:aws:states:us-east-1:000000000000:execution:operation:op_7c9e6679-7425-40de-944b-e07fc1f90ae7',
      'Send the key in the X-API-Key header; Authorization is not read.',
      'Deployment Management API (local) ready at http://localhost:43123/api/v1',
    ];
    expect(ordinary.flatMap(scanLine)).toEqual([]);
  });
});

describe('a run directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'log-scan-test-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is scanned file by file, with each finding at its line, and counted by source', () => {
    const step = line({ message: 'workflow step', step: 'checkPhase' });
    writeFileSync(path.join(dir, 'jest-integration~auth.log'), `${line({})}\n${line({ leaked: key })}\n${step}\n`);
    writeFileSync(path.join(dir, 'npm-start-42.stdout.log'), `ready at http://localhost:1/api/v1\n${line({})}\n${step}\n`);
    const result = scanLogDir(dir);
    expect(result.counts).toEqual({ files: 2, lines: 6, handlerRequests: 2, workflowSteps: 2, npmStartLines: 3 });
    expect(result.findings.map((f) => [path.basename(f.file), f.line, f.pattern])).toEqual([
      ['jest-integration~auth.log', 2, 'API key'],
      ['jest-integration~auth.log', 2, 'API key token'],
    ]);
    const { problems, summary } = verdict(result, []);
    expect(problems).toEqual([
      `${path.join(dir, 'jest-integration~auth.log')}:2  API key  svc_…(63 characters)`,
      `${path.join(dir, 'jest-integration~auth.log')}:2  API key token  ${key.slice(KEY_PREFIX.length, KEY_PREFIX.length + 4)}…(51 characters)`,
    ]);
    expect(summary).toContain('6 lines in 2 files');
    expect(problems.join('\n')).not.toContain(key.slice(KEY_PREFIX.length + 4));
  });

  it('finds the app user passwords registered as canaries (decision 51), as they are, and the given ones by their prefix', () => {
    const made = generatePassword();
    writeFileSync(
      path.join(dir, 'jest-integration~users.log'),
      `${line({})}\n${line({ note: `user got ${made}` })}\n${line({ p: `${APP_PASSWORD_PREFIX}x1` })}\n`,
    );
    expect(scanLogDir(dir).findings.map((f) => [f.line, f.pattern])).toEqual([[3, 'app user password']]);
    const found = scanLogDir(dir, [made, generatePassword()]).findings;
    expect(found.map((f) => [f.line, f.pattern])).toEqual([
      [2, 'registered canary (app user password)'],
      [3, 'app user password'],
    ]);
    expect(found[0]!.masked).toBe(`${made.slice(0, 4)}…(24 characters)`);
  });

  it('reads the canaries every test process registered in the run', () => {
    const canaries = mkdtempSync(path.join(os.tmpdir(), 'canaries-test-'));
    try {
      writeFileSync(path.join(canaries, 'canaries-1.txt'), 'aaaaaaaaaaaaaaaaaaaaaaaa\nbbbbbbbbbbbbbbbbbbbbbbbb\n');
      writeFileSync(path.join(canaries, 'canaries-2.txt'), 'cccccccccccccccccccccccc\n');
      expect(registeredCanaries(canaries).sort()).toEqual([
        'aaaaaaaaaaaaaaaaaaaaaaaa',
        'bbbbbbbbbbbbbbbbbbbbbbbb',
        'cccccccccccccccccccccccc',
      ]);
      // This run's own directory (global-setup.cjs) is where registerCanary writes.
      const mine = `${APP_PASSWORD_PREFIX}registered-${process.pid}`;
      registerCanary(mine);
      expect(registeredCanaries()).toContain(mine);
    } finally {
      rmSync(canaries, { recursive: true, force: true });
    }
  });

  it('that captured too little fails a run of a whole lane (the scan cannot pass on nothing), not a partial one', () => {
    writeFileSync(path.join(dir, 'jest-unit~core.log'), `${line({})}\n`);
    expect(verdict(scanLogDir(dir), []).problems).toEqual([]);
    // The unit lane feeds no floor: its tests run no handler through the local host.
    expect(verdict(scanLogDir(dir), ['unit', 'infra', 'tools']).problems).toEqual([]);
    const whole = verdict(scanLogDir(dir), ['unit', 'infra', 'tools', 'integration', 'e2e']).problems;
    expect(whole).toHaveLength(Object.values(LANE_FLOORS).flatMap((f) => Object.keys(f)).length);
    expect(whole[0]).toMatch(/^captured 1 handlerRequests, fewer than the 1000 a whole run of the integration lane makes/);
    // Each floor belongs to its lane: a whole integration run is not held to npm start's lines.
    const integration = verdict(scanLogDir(dir), ['integration']).problems;
    expect(integration.map((p) => /^captured \d+ (\w+),/.exec(p)?.[1])).toEqual(['handlerRequests', 'workflowSteps']);
    expect(verdict(scanLogDir(dir), ['e2e']).problems).toEqual([expect.stringMatching(/^captured 0 npmStartLines, fewer than the 20 /)]);
  });

  it('counts as the whole suite only when jest runs every file and test', () => {
    const none = { isSet: () => false, patterns: [] };
    expect(isWholeSuite({ testPathPatterns: none })).toBe(true);
    expect(isWholeSuite({ testPathPatterns: { isSet: () => true, patterns: ['auth'] } })).toBe(false);
    expect(isWholeSuite({ testPathPatterns: none, testNamePattern: 'revoked' })).toBe(false);
    expect(isWholeSuite({ testPathPatterns: none, onlyChanged: true })).toBe(false);
    expect(isWholeSuite({ testPathPatterns: none, shard: { shardIndex: 1, shardCount: 2 } })).toBe(false);
  });
});
