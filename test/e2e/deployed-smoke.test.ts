/**
 * The smoke suite for a deployed stage (test/deployed/, `npm run test:deployed`), itself
 * tested: against `npm start` with a key made by the keys CLI it passes every check and
 * prints no key; with a revoked key it fails at the first check, saying what the stage answered.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runSmoke, SmokeFailure } from '../deployed/smoke.js';
import { cleanEnv, freePort, keysCli, type LocalProcess, startNpm } from '../helpers/local-process.js';
import { captureCli } from '../helpers/log-capture.js';

jest.setTimeout(240_000);

const ROOT = path.resolve(import.meta.dirname, '../..');
let dataDir: string;
let env: Record<string, string>;
let stack: LocalProcess | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dm-smoke-'));
  env = { PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), DATA_DIR: dataDir, PHASE_DELAY_MS: '100' };
  stack = await startNpm(env);
});

afterAll(async () => {
  if (stack) await stack.stop().catch(() => stack!.kill());
  rmSync(dataDir, { recursive: true, force: true });
});

const newKey = (name: string) => {
  const made = keysCli(['create', '--org', 'smoke-org', '--name', name, '--json'], env);
  expect(made.status).toBe(0);
  return JSON.parse(made.stdout) as { id: string; key: string };
};

it('npm run test:deployed passes every check against npm start, and prints no key', () => {
  const { id, key } = newKey('smoke');
  const r = spawnSync('npm', ['run', '--silent', 'test:deployed', '--', stack!.baseUrl, key, '--timeout', '120'], {
    cwd: ROOT,
    env: cleanEnv({}),
    encoding: 'utf8',
    timeout: 180_000,
  });
  captureCli('test-deployed', r.pid, r.stdout, r.stderr);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines.map((l) => l.replace(/:.*/, ''))).toEqual([
    // npm start runs the simulated platform: no PLATFORM_SETTINGS, so the ECS checks say they are skipped.
    'skip the ECS platform checks',
    'ok GET /key',
    'ok GET /environments',
    'ok POST /deployments',
    'ok GET /operations/{id}/wait',
    'ok GET /deployments/{id}',
    'ok DELETE /deployments/{id}',
    'All smoke checks passed.',
  ]);
  expect(lines[1]).toContain(`${id} of smoke-org`);
  expect(r.stdout).not.toContain(key.slice('svc_sk_live_'.length));
});

it('fails at GET /key with a revoked key, saying what the stage answered, having created nothing', async () => {
  const { id, key } = newKey('revoked');
  expect(keysCli(['revoke', id], env).status).toBe(0);
  const passed: string[] = [];
  const failure = await runSmoke({ baseUrl: stack!.baseUrl, key, operationTimeoutMs: 60_000, report: (l) => passed.push(l) }).catch(
    (e: unknown) => e,
  );
  expect(failure).toBeInstanceOf(SmokeFailure);
  expect((failure as Error).message).toMatch(/^GET \/key answered 401, not 200: .*API_KEY_REVOKED/);
  expect(passed).toEqual([]);
});

it('refuses to run without a base URL and a key (exit 2, the usage)', () => {
  const r = spawnSync('npm', ['run', '--silent', 'test:deployed', '--', 'localhost:3000'], {
    cwd: ROOT,
    env: cleanEnv({}),
    encoding: 'utf8',
  });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('Usage: npm run test:deployed -- <ApiUrl> <key>');
});
