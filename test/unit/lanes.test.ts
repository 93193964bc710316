/**
 * The test lanes (decisions 206, 207): every test file is in a lane's folder, so some
 * `npm run test:<lane>` runs it and `npm test` runs them all; and the unit lane refuses
 * what it promises to do without: a port, a connection, Java.
 */
import { spawn, spawnSync } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const { LANES } = require('../helpers/lanes.cjs') as { LANES: Record<string, { engine: boolean; guarded: boolean }> };
const config = require('../../jest.config.cjs') as {
  projects: { displayName: string; testMatch: string[]; setupFilesAfterEnv: string[] }[];
};
const refused = /^The unit lane runs no .* \(decision 207\): move this test to test\/integration, test\/e2e or test\/tools\.$/;

describe('the lanes', () => {
  it('hold every test file but the AWS-API suite, which runs on its own (npm run test:aws-api)', () => {
    const files = globSync('test/**/*.test.ts', { cwd: ROOT });
    expect(files.length).toBeGreaterThan(100);
    const outside = files.filter((f) => !['aws-api', ...Object.keys(LANES)].includes(f.split(path.sep)[1]!));
    expect(outside).toEqual([]);
    for (const lane of Object.keys(LANES))
      expect({ lane, files: files.some((f) => f.split(path.sep)[1] === lane) }).toEqual({ lane, files: true });
  });

  it('are the projects of jest.config.cjs, each matching its own folder, the grant check only where the engine runs', () => {
    expect(config.projects.map((p) => p.displayName)).toEqual(Object.keys(LANES));
    for (const p of config.projects) {
      expect(p.testMatch).toEqual([`<rootDir>/test/${p.displayName}/**/*.test.ts`]);
      expect(p.setupFilesAfterEnv.some((f) => f.endsWith('/after-env.ts'))).toBe(LANES[p.displayName]!.engine);
      // Every lane's logs are scanned for secrets (decision 208).
      expect(p.setupFilesAfterEnv[0]).toMatch(/\/capture-logs\.ts$/);
    }
  });

  it('each have an npm script, and CI runs every one after types and lint, before the AWS validations', () => {
    const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const lane of Object.keys(LANES)) expect(scripts[`test:${lane}`]).toBe(`jest --selectProjects ${lane} --ci`);
    expect(scripts.test).toBe('tsc -b && biome check --error-on-warnings . && jest');
    const steps = readFileSync(path.join(ROOT, '.ci/run'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('npm '));
    const lanes = steps.filter((s) => /^npm run test:(unit|infra|tools|integration|e2e)$/.test(s));
    expect(lanes.map((s) => s.slice('npm run test:'.length)).sort()).toEqual(Object.keys(LANES).sort());
    expect(steps.slice(0, 3)).toEqual(['npm ci', 'npm run typecheck', 'npm run lint']);
    expect(steps.slice(3, 3 + lanes.length)).toEqual(lanes);
    expect(steps.slice(3 + lanes.length)).toEqual(['npm run test:aws-api', 'npm run validate:aws']);
  });
});

describe('a unit test', () => {
  it('cannot listen on a port', () => {
    expect(() => http.createServer().listen(0, '127.0.0.1')).toThrow(refused);
    expect(() => net.createServer().listen(0)).toThrow(refused);
  });

  it('cannot connect anywhere (DynamoDB Local, the Step Functions endpoint, AWS)', () => {
    expect(() => net.connect(8000, '127.0.0.1')).toThrow(refused);
  });

  it('cannot start Java, as DynamoDB Local does', () => {
    expect(() => spawn('java', ['-version'])).toThrow(refused);
    expect(() => spawnSync('java', ['--list-modules'])).toThrow(refused);
    expect(() => spawn('/usr/bin/java', ['-version'])).toThrow(refused);
  });

  it('can still run git, which the repository checks read', () => {
    expect(spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout).toMatch(/^git version/);
  });
});
