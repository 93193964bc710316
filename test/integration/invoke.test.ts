/**
 * `npm run invoke` (bin/invoke.ts → local/invoke.ts) and the sample events in
 * test/events/: the events match their routes, and invoking a handler with one returns
 * what API Gateway would get.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../../client/cli/args.js';
import { matchRoute } from '../../contract/router.js';
import { API_PREFIX } from '../../contract/routes.js';
import { listKeys } from '../../functions/adapters/dynamo/api-key-store.js';
import { invoke, readEvent, resolveHandler, runInvoke } from '../../local/invoke.js';
import { createKey, newOrgId } from '../helpers/fixtures.js';
import { runLocalScript } from '../helpers/run-process.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const EVENTS = path.join(ROOT, 'test/events');
const PLACEHOLDER = 'svc_sk_live_REPLACE_ME';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'invoke-test-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A sample event with the placeholder replaced, written where the CLI can read it. */
function eventWithKey(name: string, key: string): string {
  const file = path.join(tmp, `${name}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, readFileSync(path.join(EVENTS, `${name}.json`), 'utf8').replaceAll(PLACEHOLDER, key));
  return file;
}

interface LambdaResult {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

describe('sample events', () => {
  const files = readdirSync(EVENTS).filter((f) => f.endsWith('.json'));

  it('include the three documented ones', () => {
    expect(files).toEqual(expect.arrayContaining(['list-environments.json', 'get-key.json', 'create-deployment.json']));
  });

  it.each(files)('%s is an API Gateway event for the route of the handler it is named after', (file) => {
    const event = readEvent(path.join(EVENTS, file));
    const match = matchRoute(String(event.httpMethod), String(event.path));
    if (match.kind !== 'route') throw new Error(`${file} matches no route`);
    expect(match.route.handler).toBe(path.basename(file, '.json'));
    expect(event.resource).toBe(API_PREFIX + match.route.path);
    expect((event.headers as Record<string, string>)['X-API-Key']).toBe(PLACEHOLDER);
    if (match.route.body) {
      expect((event.headers as Record<string, string>)['Content-Type']).toBe('application/json');
      expect(match.route.body.safeParse(JSON.parse(String(event.body))).success).toBe(true);
    }
  });

  it('create-deployment asks for an airflow deployment', () => {
    const event = readEvent(path.join(EVENTS, 'create-deployment.json'));
    expect(event).toMatchObject({ httpMethod: 'POST', path: '/api/v1/deployments' });
    expect(JSON.parse(String(event.body))).toEqual({ app_type: 'airflow' });
  });
});

describe('invoke (in process)', () => {
  it('runs list-environments with the sample event and returns the 200 result', async () => {
    const { key, record } = await createKey({ scopes: ['org:read'] });
    const result = (await runInvoke(['list-environments', eventWithKey('list-environments', key)])) as LambdaResult;
    expect(result.statusCode).toBe(200);
    expect(result.headers['Content-Type']).toBe('application/json; charset=utf-8');
    expect(result.headers['X-RateLimit-Limit']).toBe('1000');
    expect(JSON.parse(result.body)).toEqual({
      data: {
        items: [
          {
            id: 'env_default',
            name: 'Default',
            is_default: true,
            created_at: record.created_at,
            links: { self: '/api/v1/environments/env_default' },
          },
        ],
        pagination: { page: 1, per_page: 50, total: 1, pages: 1 },
        links: expect.objectContaining({ self: expect.stringContaining('/api/v1/environments') }),
      },
    });
  });

  it('runs get-key with the sample event', async () => {
    const { key, record } = await createKey();
    const event = readEvent(eventWithKey('get-key', key));
    const result = (await invoke(resolveHandler('get-key'), event)) as LambdaResult;
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).data.id).toBe(record.id);
  });

  it('puts a key made for --org in place of the placeholder, and revokes it after the call', async () => {
    const org = newOrgId();
    const result = (await runInvoke(['get-key', path.join(EVENTS, 'get-key.json'), '--org', org])) as LambdaResult;
    expect(result.statusCode).toBe(200);
    const { id, org_id } = JSON.parse(result.body).data;
    expect(org_id).toBe(org);
    const [made] = await listKeys(org);
    expect(made).toMatchObject({ id, revoked_at: expect.any(String) });
  });

  it("sends --key as the event's key, placeholder or not", async () => {
    const { key, record } = await createKey();
    const good = (await runInvoke(['get-key', path.join(EVENTS, 'get-key.json'), '--key', key])) as LambdaResult;
    expect(JSON.parse(good.body).data.id).toBe(record.id);
    const result = (await runInvoke(['get-key', path.join(EVENTS, 'get-key.json'), '--key', 'svc_sk_live_not-a-key'])) as LambdaResult;
    expect(result.statusCode).toBe(401);
    expect(JSON.parse(result.body).error.code).toBe('INVALID_API_KEY');
  });

  it('finds HTTP handlers first, then workflow steps', () => {
    expect(resolveHandler('list-environments')).toMatchObject({
      kind: 'http',
      file: path.join(ROOT, 'functions/http/list-environments.ts'),
    });
    expect(resolveHandler('check-phase')).toMatchObject({ kind: 'workflow', file: path.join(ROOT, 'functions/workflow/check-phase.ts') });
  });

  it.each([
    ['an unknown handler', ['no-such-handler', 'x.json'], /Unknown handler "no-such-handler".*list-environments/],
    ['a path instead of a name', ['../lib/http', 'x.json'], /not a handler name/],
    ['no arguments', [], /exactly two arguments/],
    ['one argument', ['list-environments'], /exactly two arguments/],
    ['three arguments', ['list-environments', 'a.json', 'b.json'], /exactly two arguments/],
    ['a missing event file', ['list-environments', '/nonexistent/event.json'], /Cannot read the event file .*ENOENT/],
    ['--key with --org', ['get-key', 'x.json', '--key', 'k', '--org', 'o'], /exclude each other/],
    ['an unknown flag', ['get-key', 'x.json', '--colour'], /Unknown option '--colour'/],
  ])('refuses %s as a usage error', async (_what, argv, message) => {
    const error = await runInvoke(argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it('refuses malformed JSON, non-object JSON and non-HTTP events for HTTP handlers', async () => {
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, '{"httpMethod": "GET",');
    await expect(runInvoke(['get-key', bad])).rejects.toThrow(/not valid JSON/);
    const list = path.join(tmp, 'list.json');
    writeFileSync(list, '[1, 2]');
    await expect(runInvoke(['get-key', list])).rejects.toThrow(/must hold a JSON object/);
    const plain = path.join(tmp, 'plain.json');
    writeFileSync(plain, '{"operation_id": "op_1"}');
    await expect(runInvoke(['get-key', plain])).rejects.toBeInstanceOf(UsageError);
  });
});

describe('bin/invoke.ts as a process', () => {
  const cli = (...argv: string[]) => runLocalScript('bin/invoke.ts', argv, { LOG_LEVEL: 'info' });

  it('prints only the result JSON on stdout (logs on stderr) and exits 0', async () => {
    const { key, record } = await createKey();
    const { code, stdout, stderr } = await cli('get-key', eventWithKey('get-key', key));
    expect(code).toBe(0);
    const result = JSON.parse(stdout) as LambdaResult;
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body).data.id).toBe(record.id);
    expect(stderr).toContain('"message":"request"');
  });

  it('exits 3 when the handler answers an error, with the answer printed', async () => {
    const { code, stdout } = await cli('get-key', path.join(EVENTS, 'get-key.json'), '--key', 'svc_sk_live_not-a-key');
    expect(code).toBe(3);
    expect((JSON.parse(stdout) as LambdaResult).statusCode).toBe(401);
  });

  it('prints its usage and the handlers on stdout with --help or -h (exit 0)', async () => {
    const results = await Promise.all([cli('--help'), cli('get-key', '-h')]);
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /^Usage: npm run --silent invoke -- <handler> <event\.json> \[--key <key> \| --org <org_id>\]\nHandlers: .*\bget-key\b/,
      );
    }
  });

  it('exits 2 with the usage for an unknown handler and for an unreadable event', async () => {
    const bad = path.join(tmp, 'broken.json');
    writeFileSync(bad, 'not json');
    const results = await Promise.all([cli('nope', bad), cli('get-key', bad), cli()]);
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('Usage: npm run --silent invoke -- <handler> <event.json>');
    }
    expect(results[0]!.stderr).toContain('Unknown handler "nope"');
    expect(results[1]!.stderr).toContain('is not valid JSON');
  });
});
