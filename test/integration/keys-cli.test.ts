/**
 * The key admin CLI (bin/keys.ts → infra/local/keys-cli.ts): in-process with a capturing
 * io for the commands, and as a real process for the wiring (env, JSON on stdout, exit codes).
 */
import { UsageError } from '../../client/cli/args.js';
import { findKeyById } from '../../functions/adapters/dynamo/api-key-store.js';
import { isWellFormedKey } from '../../functions/core/api-keys.js';
import { SCOPES } from '../../functions/core/schemas.js';
import { runKeysCommand } from '../../infra/local/keys-cli.js';
import { call, newOrgId } from '../helpers/fixtures.js';
import { runLocalScript } from '../helpers/run-process.js';

const NOW = new Date('2026-11-22T06:40:00.000Z');

async function keys(...argv: string[]): Promise<{ code: number; lines: string[]; json: any }> {
  const lines: string[] = [];
  const code = await runKeysCommand(argv, { out: (l) => lines.push(l) }, () => NOW);
  let json: unknown;
  try {
    json = JSON.parse(lines.join('\n'));
  } catch {
    json = undefined;
  }
  return { code, lines, json };
}

describe('keys create', () => {
  it('--json prints exactly the new key and its record, with all five scopes by default', async () => {
    const org = newOrgId();
    const { code, json } = await keys('create', '--org', org, '--name', 'ci pipeline', '--json');
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(['id', 'key', 'org_id', 'name', 'scopes', 'expires_at', 'created_at']);
    expect(json).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{20}$/),
      key: expect.stringMatching(/^svc_sk_live_[0-9A-Za-z]{49}$/),
      org_id: org,
      name: 'ci pipeline',
      scopes: [...SCOPES],
      expires_at: null,
      created_at: NOW.toISOString(),
    });
    expect(isWellFormedKey(json.key)).toBe(true);
    const res = await call('GET', '/key', { key: json.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: json.id, org_id: org, scopes: [...SCOPES] });
  });

  it('--scopes restricts the key to a subset (duplicates dropped)', async () => {
    const { json } = await keys(
      'create',
      '--org',
      newOrgId(),
      '--name',
      'reader',
      '--scopes',
      'org:read, operations:read,org:read',
      '--json',
    );
    expect(json.scopes).toEqual(['org:read', 'operations:read']);
    expect((await call('GET', '/environments', { key: json.key })).status).toBe(200);
  });

  it('--expires-at is stored as ISO 8601 UTC with milliseconds and enforced', async () => {
    const { json } = await keys('create', '--org', newOrgId(), '--name', 'old', '--expires-at', '2021-01-01T00:00:00Z', '--json');
    expect(json.expires_at).toBe('2021-01-01T00:00:00.000Z');
    expect((await call('GET', '/key', { key: json.key })).body.error.code).toBe('API_KEY_EXPIRED');
  });

  it('prints a table and the key once without --json', async () => {
    const { code, lines } = await keys('create', '--org', newOrgId(), '--name', 'human');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+ORG_ID\s+NAME\s+SCOPES\s+EXPIRES_AT$/);
    expect(lines.filter((l) => /svc_sk_live_[0-9A-Za-z]{49}/.test(l))).toEqual([
      expect.stringMatching(/^\n?Key \(shown once, store it now\): svc_sk_live_/),
    ]);
  });

  it.each([
    [['create', '--org', 'o1', '--name', 'x', '--scopes', 'org:read,admin']],
    [['create', '--org', 'o1', '--name', 'x', '--scopes', '']],
    [['create', '--org', 'o1', '--name', 'x', '--scopes', 'deployments:*']],
    [['create', '--name', 'x']],
    [['create', '--org', 'o1']],
    [['create', '--org', 'bad org!', '--name', 'x']],
    [['create', '--org', 'o1', '--name', 'x', '--expires-at', 'tomorrow']],
    [['create', '--org', 'o1', '--name', 'x', '--colour', 'red']],
    [['create', '--org', 'o1', '--name', 'x', 'extra']],
    [['list']],
    [['revoke']],
    [['usage', 'key_1', '--limit', '0']],
    [['usage', 'key_1', '--limit', 'ten']],
    [['usage', 'key_1', '--limit', '1001']],
    [['rotate']],
    [[]],
  ])('refuses %j as a usage error', async (argv) => {
    await expect(runKeysCommand(argv, { out: () => undefined })).rejects.toBeInstanceOf(UsageError);
  });

  it('stores nothing when the scopes are invalid', async () => {
    const org = newOrgId();
    await expect(keys('create', '--org', org, '--name', 'x', '--scopes', 'org:read,nope')).rejects.toBeInstanceOf(UsageError);
    expect((await keys('list', '--org', org, '--json')).json).toEqual([]);
  });
});

describe('keys list', () => {
  it('--json shows the keys without any secret, with the masked hint', async () => {
    const org = newOrgId();
    const a = (await keys('create', '--org', org, '--name', 'a', '--json')).json;
    const b = (await keys('create', '--org', org, '--name', 'b', '--scopes', 'org:read', '--json')).json;
    await keys('create', '--org', newOrgId(), '--name', 'other org', '--json');
    const { code, lines, json } = await keys('list', '--org', org, '--json');
    expect(code).toBe(0);
    expect(json).toHaveLength(2);
    for (const [made, listed] of [
      [a, json.find((k: any) => k.id === a.id)],
      [b, json.find((k: any) => k.id === b.id)],
    ]) {
      expect(Object.keys(listed).sort()).toEqual([
        'created_at',
        'expires_at',
        'hint',
        'id',
        'last_used_at',
        'name',
        'org_id',
        'revoked_at',
        'scopes',
      ]);
      expect(listed.hint).toBe(`svc_sk_live_…${made.key.slice(-4)}`);
      expect(listed.hint).toMatch(/^svc_sk_live_…[0-9A-Za-z]{4}$/);
      expect(listed).toMatchObject({ org_id: org, scopes: made.scopes, revoked_at: null });
    }
    const text = lines.join('\n');
    for (const k of [a.key, b.key]) expect(text).not.toContain(k.slice(12, 55));
    expect(text).not.toMatch(/[0-9a-f]{64}/);
  });

  it('prints a table with hints and no secrets', async () => {
    const org = newOrgId();
    const made = (await keys('create', '--org', org, '--name', 'tabled', '--json')).json;
    const { lines } = await keys('list', '--org', org);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+HINT\s+SCOPES\s+EXPIRES_AT\s+REVOKED_AT\s+LAST_USED_AT$/);
    expect(lines[1]).toContain(`svc_sk_live_…${made.key.slice(-4)}`);
    expect(lines.join('\n')).not.toContain(made.key);
    expect((await keys('list', '--org', newOrgId())).lines).toEqual(['(none)']);
  });
});

describe('keys revoke', () => {
  it('revokes for good: the key is refused and a second revoke keeps the first time', async () => {
    const org = newOrgId();
    const made = (await keys('create', '--org', org, '--name', 'gone', '--json')).json;
    expect((await call('GET', '/key', { key: made.key })).status).toBe(200);
    const first = await keys('revoke', made.id, '--json');
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ id: made.id, revoked_at: NOW.toISOString() });
    expect(first.json.key).toBeUndefined();
    expect(first.json.hash).toBeUndefined();
    expect((await call('GET', '/key', { key: made.key })).body.error.code).toBe('API_KEY_REVOKED');

    const lines: string[] = [];
    expect(await runKeysCommand(['revoke', made.id], { out: (l) => lines.push(l) }, () => new Date('2030-01-01T00:00:00.000Z'))).toBe(0);
    expect(lines).toEqual([`Revoked ${made.id} (svc_sk_live_…${made.key.slice(-4)}) at ${NOW.toISOString()}.`]);
    expect((await findKeyById(made.id))?.revoked_at).toBe(NOW.toISOString());
    expect((await keys('list', '--org', org, '--json')).json[0].revoked_at).toBe(NOW.toISOString());
  });

  it('exits 1 for an unknown key id', async () => {
    const { code, json } = await keys('revoke', 'key_00000000000000000000', '--json');
    expect(code).toBe(1);
    expect(json).toEqual({ error: 'no key with id key_00000000000000000000' });
  });
});

describe('keys usage', () => {
  it('shows the newest entries first, at most --limit', async () => {
    const made = (await keys('create', '--org', newOrgId(), '--name', 'used', '--scopes', 'operations:read', '--json')).json;
    const sent = [
      await call('GET', '/key', { key: made.key }),
      await call('GET', '/environments', { key: made.key }),
      await call('GET', '/environments', { key: made.key, headers: { 'X-Request-Id': 'latest-call' } }),
    ];
    const { json } = await keys('usage', made.id, '--limit', '2', '--json');
    expect(json).toEqual([
      expect.objectContaining({
        request_id: 'latest-call',
        method: 'GET',
        route: '/api/v1/environments',
        status: 403,
        key_id: made.id,
        org_id: made.org_id,
      }),
      expect.objectContaining({ request_id: sent[1]!.headers['x-request-id'], status: 403 }),
    ]);
    expect((await keys('usage', made.id, '--json')).json).toHaveLength(3);
    const { lines } = await keys('usage', made.id);
    expect(lines[0]).toMatch(/^AT\s+METHOD\s+ROUTE\s+STATUS\s+REQUEST_ID$/);
    expect(lines).toHaveLength(4);
  });
});

describe('bin/keys.ts as a process', () => {
  /** `npx tsx bin/keys.ts …` against the test DynamoDB, found through DYNAMODB_PORT alone. */
  const cli = (...argv: string[]) => runLocalScript('bin/keys.ts', argv);

  it('creates a key in the DynamoDB named by DYNAMODB_PORT and prints only JSON', async () => {
    const org = newOrgId();
    const { code, stdout } = await cli('create', '--org', org, '--name', 'from a shell', '--scopes', 'org:read', '--json');
    expect(code).toBe(0);
    const made = JSON.parse(stdout) as { id: string; key: string };
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(await findKeyById(made.id)).toMatchObject({ org_id: org, name: 'from a shell', scopes: ['org:read'] });
    expect((await call('GET', '/environments', { key: made.key })).status).toBe(200);
  });

  it('exits 2 with the usage text on bad arguments', async () => {
    const [badScope, noCommand] = await Promise.all([
      cli('create', '--org', newOrgId(), '--name', 'x', '--scopes', 'everything', '--json'),
      cli(),
    ]);
    for (const r of [badScope, noCommand]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('Usage:');
    }
    expect(badScope.stderr).toContain('--scopes must be a comma-separated subset of');
  });

  it('prints its usage with --help or -h, before any command or after one (exit 0)', async () => {
    const results = await Promise.all([cli('--help'), cli('create', '-h')]);
    for (const r of results) {
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage:\n/);
      for (const command of ['create', 'revoke', 'list', 'usage']) expect(r.stdout).toContain(`keys ${command} `);
    }
  });

  it('answers an unknown command with a one-line error and the usage on stderr (exit 2)', async () => {
    const r = await cli('rotate', 'key_1');
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^unknown command: rotate\n\nUsage:\n/m);
    expect(r.stderr).toContain('keys revoke <key_id>');
  });
});
