/**
 * deployctl: argument handling and exit codes in-process against the real local API
 * server (every response checked against the OpenAPI document), the full create and
 * destroy cycle through the local Step Functions workflow, outcomes of waits against a
 * scripted server in virtual time, and the `npx deployctl` launcher as a real process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type CliContext, COMMANDS, EXIT, runCli } from '../../client/cli/main.js';
import { type Clock, realClock } from '../../client/index.js';
import { API_PREFIX } from '../../contract/routes.js';
import { createApiServer } from '../../local/api-server.js';
import { operationReaches, readyDeployment } from '../helpers/api.js';
import { createKey } from '../helpers/fixtures.js';
import { localApi } from '../helpers/local-api.js';
import { APP_PASSWORD_PREFIX, ENV_SECRET_PREFIX, registerCanary } from '../helpers/log-scan.js';
import { conformanceCheckingFetch } from '../helpers/openapi-conformance.js';
import { runProcess } from '../helpers/run-process.js';
import {
  close,
  DEP_ID,
  error,
  held,
  listen,
  OP_ID,
  ok,
  operation,
  routedScript,
  type Script,
  type Step,
  scriptedServer,
  virtualClock,
} from '../helpers/scripted-api.js';
import { eventually } from '../helpers/wait.js';

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  requests: number;
}

function sink(isTTY = false, columns?: number) {
  let text = '';
  return {
    stream: {
      isTTY,
      columns,
      write: (s: string) => {
        text += s;
        return true;
      },
    },
    text: () => text,
  };
}

const local = localApi();

/** A file holding `text`, in a directory of its own. */
function writeTemp(text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'deployctl-')), 'f');
  writeFileSync(file, text);
  return file;
}

async function deployctl(
  argv: string[],
  opts: { key?: string; url?: string; tty?: boolean; columns?: number; clock?: Clock; signal?: AbortSignal } = {},
): Promise<Ran> {
  const out = sink();
  const err = sink(opts.tty, opts.columns);
  let requests = 0;
  const checked = conformanceCheckingFetch();
  const ctx: CliContext = {
    stdout: out.stream,
    stderr: err.stream,
    env: { DEPLOY_API_KEY: opts.key, DEPLOY_API_URL: opts.url ?? local.baseUrl },
    // Responses of the real server must conform to the document; a scripted server's need not.
    fetch: (input, init) => {
      requests++;
      return opts.url ? fetch(input, init) : checked(input, init);
    },
    clock: opts.clock,
    // No jitter: retry delays as the tests state them.
    random: () => 1,
    signal: opts.signal,
  };
  const code = await runCli(argv, ctx);
  return { code, stdout: out.text(), stderr: err.text(), requests };
}

describe('deployctl: arguments and exit codes', () => {
  it('lists environments as a table, or as JSON with --json', async () => {
    const { key } = await createKey({ scopes: ['org:read'] });
    const table = await deployctl(['environments', 'list'], { key });
    expect(table).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+DEFAULT\s+CREATED$/);
    expect(table.stdout).toMatch(/^env_default\s+Default\s+yes\s+\d{4}-/m);
    expect(table.stdout).toContain('page 1 of 1, 1 in total');
    const json = await deployctl(['environments', 'list', '--json', '--per-page', '5'], { key });
    expect(json.code).toBe(EXIT.ok);
    expect(JSON.parse(json.stdout)).toMatchObject({
      items: [{ id: 'env_default' }],
      pagination: { page: 1, per_page: 5, total: 1, pages: 1 },
    });
  });

  it('prints usage with --help (exit 0) and with no command (exit 2)', async () => {
    const help = await deployctl(['--help']);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain('Usage: deployctl <command>');
    const none = await deployctl([]);
    expect(none.code).toBe(EXIT.usage);
    expect(none.stderr).toContain('Usage: deployctl <command>');
  });

  it.each(Object.keys(COMMANDS).flatMap((name) => [[name, '--help'] as const, [name, '-h'] as const]))(
    'prints the usage of %s alone with %s (exit 0) and sends nothing',
    async (name, flag) => {
      const res = await deployctl([...name.split(' '), flag]);
      expect(res).toMatchObject({ code: EXIT.ok, stderr: '', requests: 0 });
      expect(res.stdout.startsWith(`Usage: deployctl ${name} `)).toBe(true);
      expect(res.stdout).toContain('-h, --help');
      // Its own usage, not the global one: no other command is listed.
      expect(res.stdout).not.toContain('Commands:');
      for (const other of Object.keys(COMMANDS).filter((n) => n !== name)) expect(res.stdout).not.toContain(`deployctl ${other} `);
    },
  );

  it('prints the options of events listen with events listen --help, and a group of commands with its first word', async () => {
    const listen = await deployctl(['events', 'listen', '--help']);
    expect(listen.code).toBe(EXIT.ok);
    expect(listen.stdout).toMatch(/^Usage: deployctl events listen --forward-to <url> .*\n\s+\[--from-start \| --since <sequence>\]$/m);
    const group = await deployctl(['webhooks', '--help']);
    expect(group.code).toBe(EXIT.ok);
    const listed = group.stdout.split('\n').filter((l) => l.startsWith('  deployctl '));
    expect(listed.map((l) => l.split(' ').slice(3, 5).join(' '))).toEqual(Object.keys(COMMANDS).filter((n) => n.startsWith('webhooks ')));
  });

  it.each([
    [['deployments', 'get'], 'deployctl: deployments get takes <deployment-id>', 'Usage: deployctl deployments get <deployment-id>'],
    [['environments', 'list', '--bogus'], "deployctl: Unknown option '--bogus'", 'Usage: deployctl environments list '],
    [['deploy', 'list'], 'deployctl: unknown command "deploy list"', 'Usage: deployctl <command> [options]'],
    [['deploy', 'list', '--help'], 'deployctl: unknown command "deploy list"', 'Usage: deployctl <command> [options]'],
    [['deployments'], 'deployctl: unknown command "deployments"', 'Usage:\n  deployctl deployments list '],
  ])('answers %j with a one-line error and the usage that fits on stderr (exit 2)', async (argv, error, usage) => {
    const { key } = await createKey();
    const res = await deployctl(argv, { key });
    expect(res).toMatchObject({ code: EXIT.usage, stdout: '', requests: 0 });
    const [first, blank, ...rest] = res.stderr.split('\n');
    expect(first!.startsWith(error)).toBe(true);
    expect(blank).toBe('');
    expect(rest.join('\n').startsWith(usage)).toBe(true);
  });

  it.each([
    [['deployments'], /unknown command "deployments"/],
    [['deploy', 'list'], /unknown command "deploy list"/],
    [['deployments', 'get'], /deployments get takes <deployment-id>/],
    [['deployments', 'list', 'extra'], /takes no arguments/],
    [['deployments', 'create'], /--app-type is required/],
    [['deployments', 'create', '--app-type', 'jupyter'], /--app-type must be one of: airflow, superset \(got "jupyter"\)/],
    [['deployments', 'create', '--app-type', 'airflow', '--timeout', '60'], /--timeout goes with --wait/],
    [['deployments', 'create', '--app-type', 'airflow', '--wait', '--timeout', 'soon'], /--timeout must be a positive integer/],
    [['deployments', 'list', '--status', 'gone'], /--status must be one of: provisioning, ready, destroying, failed, destroyed/],
    [['deployments', 'list', '--per-page', 'ten'], /--per-page must be a positive integer/],
    [['deployments', 'list', '--page', '0'], /--page must be a positive integer/],
    [['operations', 'list', '--type', 'deployment.rename'], /--type must be one of: deployment\.create/],
    [['environments', 'list', '--status', 'ready'], /environments list does not take --status/],
    [['deployments', 'delete', 'x', '--app-type', 'airflow'], /does not take --app-type/],
    [['environments', 'list', '--bogus'], /Unknown option '--bogus'/],
    [['deployments', 'update', 'x'], /nothing to update: give --size/],
    [['deployments', 'update', 'x', '--size', 'huge'], /--size must be one of: small, medium, large/],
    [['deployments', 'update', 'x', '--env', 'NOVALUE'], /--env takes NAME=value \(got "NOVALUE"\)/],
    [['deployments', 'update', 'x', '--env', 'A=1', '--unset', 'A'], /A is named twice/],
    [['deployments', 'update', 'x', '--secret', '@/no/such/file'], /^deployctl: --secret takes NAME=@file or NAME=value\n/],
    [['deployments', 'update', 'x', '--secret', 'T=@/no/such/file'], /--secret T: cannot read \/no\/such\/file \(ENOENT\)/],
    [['deployments', 'update', 'x', '--size', 'large', '--dry-run', '--wait'], /--wait does not go with it/],
    [['deployments', 'update', 'x', '--size', 'large', '--if-match', 'v1'], /--if-match must be a positive integer/],
    [['deployments', 'rollback', 'x'], /--revision is required/],
    [['deployments', 'rollback', 'x', '--revision', '0'], /--revision must be a positive integer/],
    [['deployments', 'revisions', 'x', '--size', 'large'], /does not take --size/],
    [['events', 'listen', '--forward-to', 'http://localhost:4000/', '--secret', 'a', '--secret', 'b'], /--secret is taken once here/],
  ])('refuses %j with exit 2 and sends nothing', async (argv, message) => {
    const { key } = await createKey();
    const res = await deployctl(argv, { key });
    expect(res.code).toBe(EXIT.usage);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).toBe('');
    expect(res.requests).toBe(0);
  });

  it('warns once on stderr when an answer says the request used a deprecated feature, and never otherwise', async () => {
    const { key } = await createKey({ scopes: ['operations:read'] });
    const id = '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10';
    const deprecated = await deployctl(['operations', 'list', '--resource-id', `dep_${id}`, '--json'], { key });
    expect(deprecated.code).toBe(EXIT.ok);
    expect(JSON.parse(deprecated.stdout)).toMatchObject({ items: [] });
    expect(deprecated.stderr).toBe(
      `deployctl: warning: GET /operations used a feature deprecated since 2026-11-24 that may stop working after 2027-11-24; see ${new URL(local.baseUrl).origin}/api/v1/docs#deprecations\n`,
    );
    const plain = await deployctl(['operations', 'list', '--resource-id', id, '--json'], { key });
    expect(plain).toMatchObject({ code: EXIT.ok, stderr: '' });
  });

  it('needs DEPLOY_API_KEY (exit 2)', async () => {
    const res = await deployctl(['environments', 'list']);
    expect(res).toMatchObject({ code: EXIT.usage, requests: 0 });
    expect(res.stderr).toContain('set DEPLOY_API_KEY');
  });

  it('reports API errors with code, status and request id (exit 3)', async () => {
    const bad = await deployctl(['environments', 'list'], { key: 'svc_sk_live_not-a-key' });
    expect(bad.code).toBe(EXIT.apiError);
    expect(bad.stderr).toMatch(/^Error: INVALID_API_KEY: The API key is not valid\. \(HTTP 401, request req_\w+\)/);

    const { key } = await createKey({ scopes: ['org:read'] });
    const scoped = await deployctl(['deployments', 'list'], { key });
    expect(scoped.code).toBe(EXIT.apiError);
    expect(scoped.stderr).toContain('INSUFFICIENT_SCOPE');
    expect(scoped.stderr).toContain('Required: deployments:read');

    const { key: full } = await createKey();
    const missing = await deployctl(['deployments', 'get', '00000000-0000-4000-8000-000000000000'], { key: full });
    expect(missing.code).toBe(EXIT.apiError);
    expect(missing.stderr).toContain('DEPLOYMENT_NOT_FOUND');
    const tooMany = await deployctl(['deployments', 'list', '--per-page', '1000'], { key: full });
    expect(tooMany.code).toBe(EXIT.apiError);
    expect(tooMany.stderr).toMatch(/INVALID_REQUEST[\s\S]*\n {2}per_page: /);
  });

  it('reports an unreachable API (exit 3)', async () => {
    const closed = createApiServer();
    const url = await listen(closed);
    await close(closed);
    const res = await deployctl(['environments', 'list'], { key: 'k', url: `${url}${API_PREFIX}` });
    expect(res.code).toBe(EXIT.apiError);
    expect(res.stderr).toContain(`Error: GET ${url}${API_PREFIX}/environments failed`);
  });
});

describe('deployctl: create and destroy through the local workflow', () => {
  it('creates with --wait (exit 0, the url), lists and reads it, destroys with --wait (destroyed)', async () => {
    const { key } = await createKey();
    const name = `cli-${Date.now().toString(36)}`;
    const created = await deployctl(['deployments', 'create', '--app-type', 'airflow', '--name', name, '--wait'], { key });
    expect(created.stderr).toMatch(/Deployment [0-9a-f-]{36} is being created \(operation op_[0-9a-f-]{36}\)\./);
    expect(created.stderr).toMatch(/\[\s*\d+s\] creating [0-9a-f-]{36}: waiting/);
    expect(created.stderr).toMatch(/\[\s*\d+s\] succeeded ready: /);
    expect(created.code).toBe(EXIT.ok);
    const [, id, url] = /^Deployment .+ \(([0-9a-f-]{36})\) is ready: (\S+)$/m.exec(created.stdout) ?? [];
    expect(url).toBe(`https://airflow.${id}.apps.test.example`);

    const listed = await deployctl(['deployments', 'list', '--status', 'ready'], { key });
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.stdout).toMatch(new RegExp(`^${id}\\s+${name}\\s+airflow\\s+ready\\s`, 'm'));
    const shown = await deployctl(['deployments', 'get', id!, '--json'], { key });
    expect(JSON.parse(shown.stdout)).toMatchObject({ id, name, status: 'ready', url });
    const ops = await deployctl(['operations', 'list', '--resource-id', id!, '--type', 'deployment.create'], { key });
    expect(ops.stdout).toMatch(/deployment\.create\s+succeeded\s+ready\s/);

    const destroyed = await deployctl(['deployments', 'delete', id!, '--wait', '--json'], { key });
    expect(destroyed.code).toBe(EXIT.ok);
    const result = JSON.parse(destroyed.stdout) as { deployment: { status: string }; operation: { type: string; status: string } };
    expect(result.deployment.status).toBe('destroyed');
    expect(result.operation).toMatchObject({ type: 'deployment.destroy', status: 'succeeded' });
    expect(destroyed.stderr).toMatch(/succeeded destroyed: /);

    const again = await deployctl(['deployments', 'delete', id!], { key });
    expect(again.code).toBe(EXIT.apiError);
    expect(again.stderr).toContain('DEPLOYMENT_ALREADY_DESTROYED');
  });

  it('creates without --wait and tells how to follow', async () => {
    const { key } = await createKey();
    const res = await deployctl(['deployments', 'create', '--app-type', 'superset'], { key });
    expect(res.code).toBe(EXIT.ok);
    const [, opId] = /Follow it with: deployctl operations wait (op_[0-9a-f-]{36})/.exec(res.stdout) ?? [];
    expect(opId).toBeDefined();
    const waited = await deployctl(['operations', 'wait', opId!, '--json'], { key });
    expect(waited.code).toBe(EXIT.ok);
    expect(JSON.parse(waited.stdout)).toMatchObject({
      id: opId,
      status: 'succeeded',
      result: { url: expect.stringMatching(/^https:\/\/superset\./) },
    });
  });
});

describe('deployctl: updates, revisions and rollback through the local workflow', () => {
  it('shows a dry run as a diff, updates with --wait, says "No change.", lists revisions and rolls back; never shows a secret', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key, { app_type: 'airflow', config: { app_version: '2.11.0', env: { OLD: { value: 'x' } } } });
    const secret = `${ENV_SECRET_PREFIX}cli`;
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'deployctl-')), 'token');
    writeFileSync(file, `${secret}\n`);
    const change = ['--size', 'large', '--env', 'FOO=bar', '--secret', `TOKEN=@${file}`, '--unset', 'OLD', '--app-version', '3.0.6'];

    const dry = await deployctl(['deployments', 'update', d.id, ...change, '--dry-run', '--if-match', '1'], { key });
    expect(dry).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(dry.stdout).toBe(
      [
        '~ config.app_version: 2.11.0 → 3.0.6',
        '+ config.env.FOO: "bar"',
        '- config.env.OLD',
        '+ config.env.TOKEN: (secret)',
        '~ config.size: small → large',
        '',
      ].join('\n'),
    );

    const stale = await deployctl(['deployments', 'update', d.id, ...change, '--if-match', '2'], { key });
    expect(stale.code).toBe(EXIT.apiError);
    expect(stale.stderr).toContain('PRECONDITION_FAILED');

    const applied = await deployctl(['deployments', 'update', d.id, ...change, '--if-match', '1', '--wait'], { key });
    expect(applied.stderr).toMatch(/Deployment [0-9a-f-]{36} is being updated \(operation op_[0-9a-f-]{36}\)\./);
    expect(applied.stderr).toMatch(/\[\s*\d+s\] succeeded updated: /);
    expect(applied.code).toBe(EXIT.ok);
    expect(applied.stdout).toBe(`Deployment ${d.name} (${d.id}) is at revision 2.\n`);

    // The human form shows the configuration and the revision: a secret as set, never its value.
    const shown = await deployctl(['deployments', 'get', d.id], { key });
    expect(shown.code).toBe(EXIT.ok);
    expect(shown.stdout).toMatch(/^revision:\s+2$/m);
    expect(shown.stdout).toMatch(/^app_version:\s+3\.0\.6$/m);
    expect(shown.stdout).toMatch(/^size:\s+large$/m);
    expect(shown.stdout).toMatch(/^env:\s+FOO=bar\n\s+TOKEN=\(secret, set\)$/m);

    // The file's value with its line break dropped: the same value again is no change.
    const same = await deployctl(['deployments', 'update', d.id, '--secret', `TOKEN=@${file}`], { key });
    expect(same).toMatchObject({ code: EXIT.ok, stdout: 'No change.\n' });
    const sameJson = await deployctl(['deployments', 'update', d.id, '--size', 'large', '--json'], { key });
    expect(JSON.parse(sameJson.stdout)).toMatchObject({ id: d.id, revision: 2, config: { size: 'large' } });

    const revisions = await deployctl(['deployments', 'revisions', d.id], { key });
    expect(revisions.code).toBe(EXIT.ok);
    const rows = revisions.stdout.split('\n');
    expect(rows[0]).toMatch(/^REVISION\s+APPLIED\s+APP_VERSION\s+SIZE\s+ENV\s+ROLLBACK_OF$/);
    expect(rows[1]).toMatch(/^2\s+\d{4}-\S+\s+3\.0\.6\s+large\s+FOO,TOKEN\s+-$/);
    expect(rows[2]).toMatch(/^1\s+\d{4}-\S+\s+2\.11\.0\s+small\s+OLD\s+-$/);
    expect(revisions.stdout).toContain('page 1 of 1, 2 in total');

    const down = await deployctl(['deployments', 'rollback', d.id, '--revision', '1', '--dry-run'], { key });
    expect(down.code).toBe(EXIT.apiError);
    expect(down.stderr).toContain('INVALID_REQUEST');

    const up = await deployctl(['deployments', 'update', d.id, '--size', 'medium', '--wait', '--json'], { key });
    expect(up.code).toBe(EXIT.ok);
    expect(JSON.parse(up.stdout)).toMatchObject({
      deployment: { revision: 3 },
      operation: { type: 'deployment.update', status: 'succeeded' },
    });
    const backDry = await deployctl(['deployments', 'rollback', d.id, '--revision', '2', '--dry-run'], { key });
    expect(backDry).toMatchObject({ code: EXIT.ok, stdout: '~ config.size: medium → large\n' });
    const back = await deployctl(['deployments', 'rollback', d.id, '--revision', '2', '--if-match', '3', '--wait', '--json'], { key });
    expect(back.code).toBe(EXIT.ok);
    expect(JSON.parse(back.stdout).deployment).toMatchObject({ revision: 4, config: { size: 'large' } });
    const listed = await deployctl(['deployments', 'revisions', d.id, '--json', '--per-page', '1'], { key });
    expect(JSON.parse(listed.stdout).items).toMatchObject([{ revision: 4, rollback_of: 2 }]);

    for (const run of [dry, stale, applied, shown, same, sameJson, revisions, backDry, back, listed])
      expect(run.stdout + run.stderr).not.toContain(ENV_SECRET_PREFIX);
  });
});

describe('deployctl deployments users create (decision 259)', () => {
  it('prints the password once: read from --password-file, or made by the service; --json gives the answer', async () => {
    const { key } = await createKey();
    const d = await readyDeployment(key);
    const password = `${APP_PASSWORD_PREFIX}from-a-file`;
    const file = writeTemp(`${password}\n`);
    const user = ['--username', 'ada', '--email', 'ada@example.com', '--role', 'editor'];

    const given = await deployctl(['deployments', 'users', 'create', d.id, ...user, '--password-file', file, '--wait'], { key });
    expect(given.code).toBe(EXIT.ok);
    expect(given.stdout.split(password)).toHaveLength(2);
    expect(given.stdout).toContain('shown only this once');
    expect(given.stdout).toContain(`App user ada is provisioned on ${d.name} (${d.id}).`);
    expect(given.stderr).not.toContain(password);

    const made = await deployctl(['deployments', 'users', 'create', d.id, ...user, '--json'], { key });
    expect(made.code).toBe(EXIT.ok);
    const answer = JSON.parse(made.stdout);
    expect(answer).toMatchObject({ deployment_id: d.id, initial_password: expect.stringMatching(/^[A-Za-z0-9]{24}$/) });
    registerCanary(answer.initial_password);
    await operationReaches(key, answer.operation_id, ['succeeded']);
    // Only this command's answer shows it: the operation's own command does not.
    const op = await deployctl(['operations', 'get', answer.operation_id, '--json'], { key });
    expect(op.stdout).not.toContain(answer.initial_password);
  });

  it('checks its options before sending anything', async () => {
    const { key } = await createKey();
    const create = (id: string, ...more: string[]) =>
      deployctl(['deployments', 'users', 'create', id, '--username', 'ada', '--email', 'a@example.com', ...more], { key });
    const missing = await create('x');
    expect(missing).toMatchObject({ code: EXIT.usage, requests: 0 });
    expect(missing.stderr).toContain('--role is required (admin, editor, viewer)');
    const noFile = await create('x', '--role', 'viewer', '--password-file', '/no/such/file');
    expect(noFile).toMatchObject({ code: EXIT.usage, requests: 0 });
    expect(noFile.stderr).toContain('--password-file: cannot read /no/such/file (ENOENT)');
    const tooShort = await create((await readyDeployment(key)).id, '--role', 'viewer', '--password-file', writeTemp('short'));
    expect(tooShort.code).toBe(EXIT.apiError);
    expect(tooShort.stderr).toMatch(/INVALID_REQUEST[\s\S]*password:/);
  });
});

describe('deployctl: outcomes of a wait (scripted server, virtual time)', () => {
  const servers: http.Server[] = [];
  afterAll(async () => {
    for (const s of servers) await close(s);
  });
  async function scripted(script: Script, repeatLast = false) {
    const clock = virtualClock();
    const { server: s, seen } = scriptedServer(clock, script, repeatLast);
    servers.push(s);
    return { clock, seen, url: `${await listen(s)}${API_PREFIX}` };
  }
  const progressLines = (stderr: string) => stderr.split('\n').filter((l) => /^\[/.test(l));

  it('prints each phase change as a line as it happens, and exits 1 when the operation failed, naming the error', async () => {
    const failed = {
      ...operation('failed', 'provisioning_infrastructure'),
      error: { code: 'PLATFORM_ERROR', message: 'The platform refused.', phase: 'provisioning_infrastructure' as const, retryable: false },
    };
    const { clock, url } = await scripted([
      ok(operation('queued', 'queued')),
      held(operation('running', 'provisioning_db'), 3000),
      held(operation('running', 'provisioning_db'), 20_000),
      held(operation('running', 'provisioning_infrastructure'), 9000),
      held(failed, 40_000 - 33_000),
    ]);
    const res = await deployctl(['operations', 'wait', OP_ID], { key: 'k', url, clock });
    expect(res.code).toBe(EXIT.operationFailed);
    expect(res.stderr).toContain(`Operation ${OP_ID} failed in phase provisioning_infrastructure: PLATFORM_ERROR: The platform refused.`);
    expect(progressLines(res.stderr)).toEqual([
      `[    0s] ${OP_ID}: waiting`,
      '[    0s] queued queued: Now queued',
      '[    4s] running provisioning_db: Now provisioning_db',
      '[   33s] running provisioning_infrastructure: Now provisioning_infrastructure',
      '[   40s] failed provisioning_infrastructure: Now provisioning_infrastructure',
    ]);
    expect(res.stdout).toContain('status:       failed');
  });

  it('has no time limit by default: a wait of two hours ends when the operation does (exit 0)', async () => {
    let waits = 0;
    const { clock, url, seen } = await scripted((req) => {
      if (!req.path.split('?')[0]!.endsWith('/wait')) return ok(operation('running', 'destroying_infrastructure'));
      waits++;
      return held(waits <= 360 ? operation('running', 'destroying_infrastructure') : operation('succeeded', 'destroyed'), 20_000);
    });
    const res = await deployctl(['operations', 'wait', OP_ID], { key: 'k', url, clock });
    expect(res.code).toBe(EXIT.ok);
    expect(progressLines(res.stderr)).toEqual([
      `[    0s] ${OP_ID}: waiting`,
      '[    0s] running destroying_infrastructure: Now destroying_infrastructure',
      '[2h00m21s] succeeded destroyed: Now destroyed',
    ]);
    expect(seen).toHaveLength(1 + 361);
  });

  it('exits 4 when it was canceled, 1 when a given --timeout runs out, naming the command to watch it again', async () => {
    const canceled = await scripted([ok(operation('canceled', 'provisioning_db'))]);
    expect((await deployctl(['operations', 'wait', OP_ID], { key: 'k', url: canceled.url, clock: canceled.clock })).code).toBe(
      EXIT.operationCanceled,
    );
    const slow = await scripted([ok(operation('running', 'provisioning_db'))], true);
    const res = await deployctl(['operations', 'wait', OP_ID, '--timeout', '60'], { key: 'k', url: slow.url, clock: slow.clock });
    expect(res.code).toBe(EXIT.operationFailed);
    expect(res.stderr).toContain(`Gave up waiting for operation ${OP_ID} after 1m00s.`);
    expect(res.stderr).toContain(`Still running: deployctl operations wait ${OP_ID}\n`);
  });

  it('keeps going through a 429, a 503 and a dropped connection, saying so', async () => {
    const { clock, url } = await scripted([
      ok(operation('running', 'provisioning_db')),
      error(429, 'RATE_LIMIT_EXCEEDED', { 'Retry-After': '30' }),
      error(503, 'INTERNAL_ERROR'),
      'drop',
      held(operation('succeeded', 'ready'), 2000),
    ]);
    const res = await deployctl(['operations', 'wait', OP_ID], { key: 'k', url, clock });
    expect(res.code).toBe(EXIT.ok);
    expect(progressLines(res.stderr).slice(2)).toEqual([
      '[    1s] retrying in 30s (429 RATE_LIMIT_EXCEEDED)',
      '[   31s] retrying in 1s (503 INTERNAL_ERROR)',
      '[   32s] retrying in 2s (other side closed)',
      '[   36s] succeeded ready: Now ready',
    ]);
  });

  it('polls instead against a server without the wait route, saying so', async () => {
    const { clock, url, seen } = await scripted(
      routedScript({
        get: [ok(operation('running', 'syncing_dags')), ok(operation('running', 'syncing_dags')), ok(operation('succeeded', 'synced'))],
        wait: [error(404, 'NOT_FOUND')],
      }),
    );
    const res = await deployctl(['operations', 'wait', OP_ID], { key: 'k', url, clock });
    expect(res.code).toBe(EXIT.ok);
    expect(progressLines(res.stderr)).toEqual([
      `[    0s] ${OP_ID}: waiting`,
      '[    0s] running syncing_dags: Now syncing_dags',
      '[    1s] the API cannot wait (404 NOT_FOUND); polling instead',
      '[    6s] succeeded synced: Now synced',
    ]);
    expect(seen.map((s) => s.path.split('?')[0]!.endsWith('/wait'))).toEqual([false, true, false, false]);
  });

  it('on Ctrl-C (its signal) stops waiting, leaves the operation alone and names the command to watch it (exit 130)', async () => {
    const controller = new AbortController();
    const accepted: Step = {
      status: 202,
      body: {
        data: {
          deployment_id: DEP_ID,
          operation_id: OP_ID,
          links: { deployment: `/api/v1/deployments/${DEP_ID}`, operation: `/api/v1/operations/${OP_ID}` },
        },
      },
      headers: { 'Retry-After': '2' },
    };
    const { clock, url, seen } = await scripted([accepted, ok(operation('running', 'provisioning_db'))], true);
    const interrupting: Clock = {
      now: () => clock.now(),
      sleep: async (ms, signal) => {
        // Ctrl-C after the third request.
        if (seen.length === 3) controller.abort(new Error('interrupted'));
        await clock.sleep(ms, signal);
      },
    };
    const res = await deployctl(['deployments', 'delete', DEP_ID, '--wait'], {
      key: 'k',
      url,
      clock: interrupting,
      signal: controller.signal,
    });
    expect(res.code).toBe(EXIT.interrupted);
    expect(res.stderr).toContain(
      `Stopped waiting; operation ${OP_ID} goes on (it was not canceled; last seen: running, phase provisioning_db).\nStill running: deployctl operations wait ${OP_ID}\n`,
    );
    expect(seen.map((s) => s.method)).toEqual(['DELETE', 'GET', 'GET']);
    expect(res.stdout).toBe('');
  });

  it('draws a spinner line with the elapsed time on a terminal', async () => {
    const { clock, url } = await scripted([ok(operation('running', 'provisioning_db')), held(operation('succeeded', 'ready'), 2000)]);
    const res = await deployctl(['operations', 'wait', OP_ID], { key: 'k', url, clock, tty: true });
    expect(res.code).toBe(EXIT.ok);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the spinner's ANSI erase-line sequence is what is tested
    expect(res.stderr).toMatch(/\r\u001b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] op_[0-9a-f-]+: running · provisioning_db · Now provisioning_db \(0s\)/);
    expect(res.stderr.endsWith('\r\x1b[2K')).toBe(true);
    expect(res.stderr).not.toContain('\n');
  });

  it('keeps the spinner line within the terminal width', async () => {
    const { clock, url } = await scripted([ok(operation('running', 'provisioning_infrastructure')), ok(operation('succeeded', 'ready'))]);
    const res = await deployctl(['operations', 'wait', OP_ID], { key: 'k', url, clock, tty: true, columns: 60 });
    expect(res.code).toBe(EXIT.ok);
    const drawn = res.stderr.split('\r\x1b[2K').filter(Boolean);
    expect(drawn.length).toBeGreaterThan(1);
    for (const line of drawn) expect([...line].length).toBeLessThan(60);
    expect(drawn.some((l) => /…\s\(\d+s\)$/.test(l))).toBe(true);
  });
});

describe('npx deployctl (bin/deployctl.js)', () => {
  const BIN = path.resolve(import.meta.dirname, '../../bin/deployctl.js');
  const run = (args: string[], env: Record<string, string>) =>
    runProcess(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });

  it('runs the TypeScript CLI as a real process, with its exit codes', async () => {
    const { key } = await createKey();
    const listed = await run(['environments', 'list', '--json'], { DEPLOY_API_KEY: key, DEPLOY_API_URL: local.baseUrl });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).items[0].id).toBe('env_default');
    const usage = await run(['deployments', 'get'], { DEPLOY_API_KEY: key, DEPLOY_API_URL: local.baseUrl });
    expect(usage.code).toBe(2);
    const denied = await run(['environments', 'list'], { DEPLOY_API_KEY: 'svc_sk_live_nope', DEPLOY_API_URL: local.baseUrl });
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('INVALID_API_KEY');
  });

  it('runs as plain `deployctl` with bin/ on the PATH, as docs/client.md says: no npx, nothing on stderr', async () => {
    const { key } = await createKey();
    const nodeDir = path.dirname(process.execPath);
    const listed = await runProcess('deployctl', ['environments', 'list', '--json'], {
      env: {
        PATH: `${path.resolve(import.meta.dirname, '../../bin')}:${nodeDir}:/usr/bin:/bin`,
        DEPLOY_API_KEY: key,
        DEPLOY_API_URL: local.baseUrl,
      },
    });
    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).items[0].id).toBe('env_default');
  });

  it('on SIGINT while waiting stops, leaves the operation running, names the command to watch it again, and exits 130', async () => {
    // The wait request is never answered: the CLI is in the middle of a wait when it gets SIGINT.
    const { server: scripted, seen } = scriptedServer(
      realClock,
      routedScript({ get: [ok(operation('running', 'provisioning_db'))], wait: ['hang'], other: [error(500, 'INTERNAL_ERROR')] }),
    );
    const url = `${await listen(scripted)}${API_PREFIX}`;
    try {
      const child = spawn(process.execPath, [BIN, 'operations', 'wait', OP_ID], {
        env: { PATH: process.env.PATH ?? '', DEPLOY_API_KEY: 'svc_sk_live_test', DEPLOY_API_URL: url },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 30_000,
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('close', (code, signal) => resolve({ code, signal })),
      );
      await eventually(async () => seen.some((r) => r.path.split('?')[0]!.endsWith('/wait')), 'deployctl to be holding a wait request');
      child.kill('SIGINT');
      expect(await exited).toEqual({ code: EXIT.interrupted, signal: null });
      // The elapsed time in front depends on the machine's speed, not on the CLI.
      expect(stderr).toMatch(/\[ +\d+s\] running provisioning_db: Now provisioning_db\n/);
      expect(stderr).toContain(`Still running: deployctl operations wait ${OP_ID}\n`);
      expect(stdout).toBe('');
      // Nothing but the look and the wait: no cancel, no other request.
      expect(seen.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
        `GET ${API_PREFIX}/operations/${OP_ID}`,
        `GET ${API_PREFIX}/operations/${OP_ID}/wait`,
      ]);
    } finally {
      await close(scripted);
    }
  });
});
