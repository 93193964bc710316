/**
 * The key admin CLI (bin/keys.ts → local/keys-cli.ts): in-process with a capturing
 * io for the commands, and as a real process for the wiring (env, JSON on stdout, exit codes).
 */
import { UsageError } from '../../client/cli/args.js';
import { SCOPES } from '../../contract/vocabulary.js';
import { findKeyById } from '../../functions/adapters/dynamo/api-key-store.js';
import { createApiKey } from '../../functions/app/api-keys.js';
import { generateKey, keyForm } from '../../functions/core/api-keys.js';
import { runKeysCommand } from '../../local/keys-cli.js';
import { call, newOrgId, signingSecret, storeKey } from '../helpers/fixtures.js';
import { runLocalScript } from '../helpers/run-process.js';
import { eventually } from '../helpers/wait.js';

const NOW = new Date('2026-11-22T06:40:00.000Z');

async function keys(...argv: string[]): Promise<{ code: number; lines: string[]; errors: string[]; json: any }> {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await runKeysCommand(argv, { out: (l) => lines.push(l), fail: (l) => errors.push(l) }, () => NOW);
  let json: unknown;
  try {
    json = JSON.parse(lines.join('\n'));
  } catch {
    json = undefined;
  }
  return { code, lines, errors, json };
}

describe('keys create', () => {
  it('--json prints exactly the new key and its record, with all five scopes by default', async () => {
    const org = newOrgId();
    const { code, json } = await keys('create', '--org', org, '--name', 'ci pipeline', '--json');
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(['id', 'key', 'org_id', 'name', 'scopes', 'expires_at', 'created_at']);
    expect(json).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{20}$/),
      key: expect.stringMatching(/^svc_sk_live_[0-9A-Za-z]{51}$/),
      org_id: org,
      name: 'ci pipeline',
      scopes: [...SCOPES],
      expires_at: null,
      created_at: NOW.toISOString(),
    });
    expect(keyForm(json.key, signingSecret())).toBe('signed');
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
    // In the future for the CLI's clock (NOW), in the past for the API's: stored, then enforced.
    const { json } = await keys('create', '--org', newOrgId(), '--name', 'old', '--expires-at', '2026-11-23T00:00:00Z', '--json');
    expect(json.expires_at).toBe('2026-11-23T00:00:00.000Z');
    expect((await call('GET', '/key', { key: json.key })).body.error.code).toBe('API_KEY_EXPIRED');
  });

  it('prints a table and the key once without --json', async () => {
    const { code, lines } = await keys('create', '--org', newOrgId(), '--name', 'human');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+ORG_ID\s+NAME\s+SCOPES\s+EXPIRES_AT$/);
    expect(lines.filter((l) => /svc_sk_live_[0-9A-Za-z]{51}/.test(l))).toEqual([
      expect.stringMatching(/^\n?Key \(shown once, store it now\): svc_sk_live_/),
    ]);
  });

  it('--print key prints the bare key alone, one that works', async () => {
    const { code, lines } = await keys('create', '--org', newOrgId(), '--name', 'script', '--print', 'key');
    expect(code).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/^svc_sk_live_[0-9A-Za-z]{51}$/)]);
    expect((await call('GET', '/key', { key: lines[0]! })).status).toBe(200);
  });

  it.each([
    [['create', '--org', 'o1', '--name', 'x', '--print', 'id']],
    [['create', '--org', 'o1', '--name', 'x', '--print', 'key', '--json']],
    [['create', '--org', 'o1', '--name', 'x', '--scopes', 'org:read,admin']],
    [['create', '--org', 'o1', '--name', 'x', '--scopes', '']],
    [['create', '--org', 'o1', '--name', 'x', '--scopes', 'deployments:*']],
    [['create', '--name', 'x']],
    [['create', '--org', 'o1']],
    [['create', '--org', 'bad org!', '--name', 'x']],
    [['create', '--org', 'o1', '--name', 'x', '--expires-at', 'tomorrow']],
    [['create', '--org', 'o1', '--name', 'x', '--expires-at', '2026-11-22T06:39:59Z']],
    [['create', '--org', 'o1', '--name', 'x', '--expires-at', '2026-11-22T06:40:00.000Z']],
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
    await expect(runKeysCommand(argv, { out: () => undefined, fail: () => undefined })).rejects.toBeInstanceOf(UsageError);
  });

  it('refuses an --expires-at in the past with a clear message, and stores nothing', async () => {
    const org = newOrgId();
    await expect(keys('create', '--org', org, '--name', 'x', '--expires-at', '2026-01-01T00:00:00Z')).rejects.toThrow(
      '--expires-at must be in the future (it is 2026-01-01T00:00:00.000Z)',
    );
    expect((await keys('list', '--org', org, '--json')).json).toEqual([]);
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
    expect(
      await runKeysCommand(['revoke', made.id], { out: (l) => lines.push(l), fail: () => {} }, () => new Date('2030-01-01T00:00:00.000Z')),
    ).toBe(0);
    expect(lines).toEqual([`Revoked ${made.id} (svc_sk_live_…${made.key.slice(-4)}) at ${NOW.toISOString()}.`]);
    expect((await findKeyById(made.id))?.revoked_at).toBe(NOW.toISOString());
    expect((await keys('list', '--org', org, '--json')).json[0].revoked_at).toBe(NOW.toISOString());
  });

  it('exits 1 for an unknown key id', async () => {
    const { code, lines, errors } = await keys('revoke', 'key_00000000000000000000', '--json');
    expect({ code, lines, errors }).toEqual({ code: 1, lines: [], errors: ['No key with id key_00000000000000000000.'] });
  });
});

describe('keys rotate', () => {
  /** Rotation against the real clock: the grace it grants is measured from now. */
  async function rotate(...argv: string[]) {
    const lines: string[] = [];
    const errors: string[] = [];
    const code = await runKeysCommand(['rotate', ...argv], { out: (l) => lines.push(l), fail: (l) => errors.push(l) });
    return { code, lines, errors, json: lines.length === 1 && lines[0]!.startsWith('{') ? JSON.parse(lines[0]!) : undefined };
  }
  const createNow = (...argv: string[]) => runKeysCommand(argv, { out: () => {}, fail: () => {} });
  async function made(...extra: string[]) {
    const lines: string[] = [];
    await runKeysCommand(['create', '--org', newOrgId(), '--name', 'deployer', ...extra, '--json'], {
      out: (l) => lines.push(l),
      fail: () => {},
    });
    return JSON.parse(lines[0]!) as { id: string; key: string; org_id: string; scopes: string[]; expires_at: string | null };
  }

  it('--json prints the new key as create does, plus rotated_from; both keys work, the old one until now + grace', async () => {
    const old = await made('--scopes', 'org:read,operations:read');
    const before = Date.now();
    const { code, json } = await rotate(old.id, '--grace', '3600', '--json');
    expect(code).toBe(0);
    expect(Object.keys(json)).toEqual(['id', 'key', 'org_id', 'name', 'scopes', 'expires_at', 'created_at', 'rotated_from']);
    expect(json).toMatchObject({
      org_id: old.org_id,
      name: 'deployer',
      scopes: ['org:read', 'operations:read'],
      expires_at: null,
      rotated_from: old.id,
    });
    expect(json.id).not.toBe(old.id);
    expect(keyForm(json.key, signingSecret())).toBe('signed');
    const oldExpiry = Date.parse((await findKeyById(old.id))!.expires_at!);
    expect(oldExpiry).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(oldExpiry).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect((await call('GET', '/key', { key: old.key })).body.data).toMatchObject({
      id: old.id,
      expires_at: new Date(oldExpiry).toISOString(),
    });
    expect((await call('GET', '/key', { key: json.key })).body.data).toMatchObject({ id: json.id, expires_at: null });
  });

  it('grants a day by default, and never lengthens the old key: it keeps its own earlier expiry', async () => {
    const soon = new Date(Date.now() + 600_000).toISOString();
    const old = await made('--expires-at', soon);
    const { json } = await rotate(old.id, '--json');
    expect(json.expires_at).toBe(soon);
    expect((await findKeyById(old.id))!.expires_at).toBe(soon);
    const plain = await made();
    const before = Date.now();
    await rotate(plain.id, '--json');
    const expiry = Date.parse((await findKeyById(plain.id))!.expires_at!);
    expect(expiry).toBeGreaterThanOrEqual(before + 86_400_000);
    expect(expiry).toBeLessThanOrEqual(Date.now() + 86_400_000);
  });

  it('refuses the old key with API_KEY_EXPIRED once its grace is over (grace 0), and the new key can be rotated again', async () => {
    const old = await made();
    const first = await rotate(old.id, '--grace', '0', '--json');
    expect(first.code).toBe(0);
    await eventually(
      async () => (await call('GET', '/key', { key: old.key })).body.error?.code === 'API_KEY_EXPIRED',
      'the old key to expire',
      5_000,
    );
    expect((await call('GET', '/key', { key: first.json.key })).status).toBe(200);
    const second = await rotate(first.json.id, '--grace', '1', '--json');
    expect(second).toMatchObject({ code: 0, json: { rotated_from: first.json.id } });
    const third = await call('GET', '/key', { key: second.json.key });
    expect(third.status).toBe(200);
    await eventually(
      async () => (await call('GET', '/key', { key: first.json.key })).body.error?.code === 'API_KEY_EXPIRED',
      'the grace of 1 s to end',
      5_000,
    );
  });

  it('prints the new key once, and until when the old one works, without --json', async () => {
    const old = await made();
    const { code, lines } = await rotate(old.id, '--grace', '60');
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+ORG_ID\s+NAME\s+SCOPES\s+EXPIRES_AT\s+ROTATED_FROM$/);
    expect(lines.filter((l) => /svc_sk_live_[0-9A-Za-z]{49}/.test(l))).toHaveLength(1);
    expect(lines.at(-1)).toBe(
      `${old.id} (svc_sk_live_…${old.key.slice(-4)}) keeps working until ${(await findKeyById(old.id))!.expires_at}.`,
    );
  });

  it('refuses to rotate a key still in its grace a second time (decision 229): its successor can be rotated', async () => {
    const old = await made();
    const first = await rotate(old.id, '--grace', '3600', '--json');
    expect(first.code).toBe(0);
    const count = (await keys('list', '--org', old.org_id, '--json')).json.length;
    const message = `API key ${old.id} was rotated already (its successor is ${first.json.id}); rotate ${first.json.id} instead.`;
    expect(await rotate(old.id, '--json')).toEqual({ code: 1, lines: [], errors: [message], json: undefined });
    expect((await keys('list', '--org', old.org_id, '--json')).json).toHaveLength(count);
    // The old key still works until the end of its first grace, and its successor rotates on.
    expect((await call('GET', '/key', { key: old.key })).status).toBe(200);
    const second = await rotate(first.json.id, '--grace', '60', '--json');
    expect(second).toMatchObject({ code: 0, json: { rotated_from: first.json.id } });
    // Two rotations of one key at once: one succeeds, the other is refused.
    const racer = await made();
    const both = await Promise.all([rotate(racer.id, '--json'), rotate(racer.id, '--json')]);
    expect(both.map((r) => r.code).sort()).toEqual([0, 1]);
  });

  it('exits 1 with one line for a revoked, an expired or an unknown key, and makes no key', async () => {
    const revoked = await made();
    await createNow('revoke', revoked.id);
    const expired = await made();
    await rotate(expired.id, '--grace', '0');
    await eventually(async () => (await call('GET', '/key', { key: expired.key })).status === 401, 'the key to expire', 5_000);
    const cases = [
      [revoked, `API key ${revoked.id} is revoked, so it cannot be rotated; create a new key instead.`],
      [expired, `API key ${expired.id} is expired, so it cannot be rotated; create a new key instead.`],
    ] as const;
    for (const [key, message] of cases) {
      const count = (await keys('list', '--org', key.org_id, '--json')).json.length;
      expect(await rotate(key.id)).toEqual({ code: 1, lines: [], errors: [message], json: undefined });
      expect(await rotate(key.id, '--json')).toEqual({ code: 1, lines: [], errors: [message], json: undefined });
      expect((await keys('list', '--org', key.org_id, '--json')).json).toHaveLength(count);
    }
    expect(await rotate('key_00000000000000000000')).toEqual({
      code: 1,
      lines: [],
      errors: ['No key with id key_00000000000000000000.'],
      json: undefined,
    });
  });

  it.each(
    [['--grace', '604801'], ['--grace', '-1'], ['--grace', '1.5'], ['--grace', 'day'], ['--grace', ''], []].map((a) => [
      a.join(' ') || 'no key id',
      a,
    ]),
  )('is a usage error (exit 2) with %s', async (_name, argv) => {
    const id = argv.length ? (await made()).id : undefined;
    await expect(rotate(...(id ? [id] : []), ...argv)).rejects.toThrow(UsageError);
    if (id) expect((await findKeyById(id))!.expires_at).toBeNull();
  });

  it('takes the largest grace, a week', async () => {
    const old = await made();
    expect((await rotate(old.id, '--grace', '604800', '--json')).code).toBe(0);
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
    const [badScope, noCommand, badGrace] = await Promise.all([
      cli('create', '--org', newOrgId(), '--name', 'x', '--scopes', 'everything', '--json'),
      cli(),
      cli('rotate', 'key_00000000000000000000', '--grace', '604801'),
    ]);
    for (const r of [badScope, noCommand, badGrace]) {
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('Usage:');
    }
    expect(badScope.stderr).toContain('--scopes must be a comma-separated subset of');
    expect(badGrace.stderr).toContain('--grace must be an integer number of seconds from 0 to 604800');
    expect(badGrace.stderr).toContain('keys rotate <key_id>');
  });

  it('rotates with --json and exits 1 for a revoked key', async () => {
    const org = newOrgId();
    const made = JSON.parse((await cli('create', '--org', org, '--name', 'rotating', '--json')).stdout) as { id: string; key: string };
    const rotated = await cli('rotate', made.id, '--grace', '30', '--json');
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout)).toMatchObject({ org_id: org, name: 'rotating', rotated_from: made.id });
    await cli('revoke', made.id);
    const refused = await cli('rotate', made.id);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    // One line of its own (npx may add its own warnings before it).
    expect(refused.stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'))).toEqual([
      `API key ${made.id} is revoked, so it cannot be rotated; create a new key instead.`,
    ]);
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
    const r = await cli('rename', 'key_1');
    expect(r).toMatchObject({ code: 2, stdout: '' });
    expect(r.stderr).toMatch(/^unknown command: rename\n\nUsage:\n/m);
    expect(r.stderr).toContain('keys revoke <key_id>');
  });
});

describe('control characters in key names', () => {
  const hostile = 'ci\u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\\r\u001b[2Kroot \u202e';

  it('are refused when a key is made, by the CLI and the one path the dashboard shares (400 INVALID_REQUEST, field name)', async () => {
    const org = newOrgId();
    await expect(createApiKey({ orgId: org, name: hostile, now: NOW })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
      options: { details: [{ field: 'name', issue: 'must not contain control characters' }] },
    });
    await expect(keys('create', '--org', org, '--name', 'a\u0007b')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('never reach the terminal raw from a name stored before: list shows each as its \\u escape', async () => {
    const org = newOrgId();
    const { record } = generateKey({ orgId: org, name: 'plain', now: NOW }, signingSecret());
    await storeKey({ ...record, name: hostile });
    const { code, lines } = await keys('list', '--org', org);
    expect(code).toBe(0);
    const text = lines.join('\n');
    expect(text).not.toMatch(/(?!\n)[\p{Cc}\u202e]/u);
    expect(text).toContain('ci\\u001b]8;;https://evil.example\\u001b\\click');
    expect(text).toContain('\\u000d\\u001b[2Kroot \\u202e');
  });
});
