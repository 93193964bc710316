/**
 * A deployment's configuration as pure rules (functions/core/deployment-config.ts,
 * decisions 41-43): the merge patch, the changes it shows, version order, sealing and the
 * view that never shows a secret. test/integration/deployment-config.test.ts runs the
 * same rules through HTTP and the table; here each rule is checked on its own, some over
 * generated configurations (fast-check).
 */
import fc from 'fast-check';
import {
  applyConfigPatch,
  type ConfigInput,
  compareVersions,
  configChanges,
  configView,
  DEFAULT_APP_VERSIONS,
  defaultConfig,
  MAX_ENV_ENTRIES,
  newestVersion,
  type PatchContext,
  type PendingConfig,
  type StoredConfig,
  sealPending,
  secretDigest,
  versionProblems,
} from '../../functions/core/deployment-config.js';
import { etagOf, ifMatchHolds, revisionNumber } from '../../functions/core/revisions.js';

const KEY = Buffer.alloc(32, 7);
const place = (name: string) => ({ orgId: 'org-a', deploymentId: 'dep-1', name });
const ctx: PatchContext = {
  appType: 'airflow',
  versions: DEFAULT_APP_VERSIONS,
  digest: (name, value) => secretDigest(KEY, place(name), value),
};
const sealed = (name: string, value: string) => ({ secret: true as const, sealed: `v2:sealed-${name}`, digest: ctx.digest(name, value) });

/** A stored configuration: a plain entry, a secret entry, on the oldest airflow release. */
const current = (): StoredConfig => ({
  app_version: '2.10.5',
  size: 'small',
  env: { PLAIN: { value: 'p', secret: false }, TOKEN: sealed('TOKEN', 'old-token') },
});

describe('applyConfigPatch (decision 42)', () => {
  it('leaves everything as it is for an empty patch, with no problem and no change', () => {
    const { config, problems } = applyConfigPatch(current(), {}, ctx);
    expect(problems).toEqual([]);
    expect(config).toEqual(current());
    expect(configChanges(current(), config)).toEqual([]);
  });

  it('removes a name with null, clears env with env: null, and merges into an entry with an object', () => {
    expect(applyConfigPatch(current(), { env: { PLAIN: null } }, ctx).config.env).toEqual({ TOKEN: current().env.TOKEN });
    expect(applyConfigPatch(current(), { env: null }, ctx).config.env).toEqual({});
    // Removing a name that is not there is no problem and no change.
    const absent = applyConfigPatch(current(), { env: { NOPE: null } }, ctx);
    expect(absent.problems).toEqual([]);
    expect(configChanges(current(), absent.config)).toEqual([]);
    // `value` alone keeps the entry's secrecy: a plain value changes, a secret takes a new value and stays secret.
    const merged = applyConfigPatch(current(), { env: { PLAIN: { value: 'q' }, TOKEN: { value: 'new-token' } } }, ctx).config;
    expect(merged.env.PLAIN).toEqual({ value: 'q', secret: false });
    expect(merged.env.TOKEN).toEqual({ secret: true, value: 'new-token', digest: ctx.digest('TOKEN', 'new-token') });
  });

  it('needs a value for a new name, and for a secret made non-secret, naming the field', () => {
    const { problems } = applyConfigPatch(current(), { env: { NEW: { secret: true }, TOKEN: { secret: false } } }, ctx);
    expect(problems).toEqual([
      { field: 'config.env.NEW.value', issue: 'is required for a new name' },
      { field: 'config.env.TOKEN.value', issue: 'is required to make a secret entry non-secret' },
    ]);
  });

  it('makes a plain entry secret with its current value, and keeps a secret sent without a value as stored', () => {
    const before = current();
    const { config, problems } = applyConfigPatch(before, { env: { PLAIN: { secret: true }, TOKEN: { secret: true } } }, ctx);
    expect(problems).toEqual([]);
    expect(config.env.PLAIN).toEqual({ secret: true, value: 'p', digest: ctx.digest('PLAIN', 'p') });
    // The very entry stored: nothing to seal again, no change to show.
    expect(config.env.TOKEN).toBe(before.env.TOKEN);
    expect(configChanges(before, config)).toEqual([
      { field: 'config.env.PLAIN', from: { value: 'p', secret: false }, to: { secret: true } },
    ]);
  });

  it('keeps the stored secret when the same value is sent again: no change shown, nothing to seal', () => {
    const before = current();
    const { config } = applyConfigPatch(before, { env: { TOKEN: { value: 'old-token', secret: true } } }, ctx);
    expect(config.env.TOKEN).toBe(before.env.TOKEN);
    expect(configChanges(before, config)).toEqual([]);
    // A different value is a change, shown without either value.
    const changed = applyConfigPatch(before, { env: { TOKEN: { value: 'other' } } }, ctx).config;
    expect(configChanges(before, changed)).toEqual([{ field: 'config.env.TOKEN', from: { secret: true }, to: { secret: true } }]);
  });

  it('takes a higher supported version, refuses a lower or unknown one, and lets a creation pick any supported one', () => {
    expect(applyConfigPatch(current(), { app_version: '3.1.3' }, ctx)).toMatchObject({ config: { app_version: '3.1.3' }, problems: [] });
    const newer = { ...current(), app_version: '3.0.6' };
    expect(applyConfigPatch(newer, { app_version: '2.11.0' }, ctx).problems).toEqual([
      { field: 'config.app_version', issue: 'must not be lower than the current 3.0.6 (no downgrades)' },
    ]);
    expect(applyConfigPatch(newer, { app_version: '2.11.0' }, ctx, { allowDowngrade: true }).problems).toEqual([]);
    expect(applyConfigPatch(current(), { app_version: '9.9.9' }, ctx).problems).toEqual([
      { field: 'config.app_version', issue: 'must be a supported airflow release: 2.10.5, 2.11.0, 3.0.6, 3.1.3' },
    ]);
  });

  it('lets a deployment stay on a release no longer offered, but not move to it', () => {
    const retired = { ...current(), app_version: '2.9.0' };
    expect(applyConfigPatch(retired, { size: 'large' }, ctx).problems).toEqual([]);
    expect(applyConfigPatch(retired, { app_version: '2.9.0' }, ctx).problems).toEqual([]);
    expect(versionProblems('2.9.0', '2.9.0', ctx, true)).toHaveLength(1);
  });

  it(`allows ${MAX_ENV_ENTRIES} env entries, not one more`, () => {
    const names = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`N${i}`, { value: 'v' }]));
    const empty = { ...current(), env: {} };
    expect(applyConfigPatch(empty, { env: names(MAX_ENV_ENTRIES) }, ctx).problems).toEqual([]);
    expect(applyConfigPatch(empty, { env: names(MAX_ENV_ENTRIES + 1) }, ctx).problems).toEqual([
      { field: 'config.env', issue: `must have at most ${MAX_ENV_ENTRIES} entries` },
    ]);
  });
});

// Generated patches of a small alphabet of names and values, so they often touch the same entries.
const name = fc.constantFrom('A', 'B', 'C', 'PLAIN', 'TOKEN');
const entry = fc.option(
  fc.record(
    {
      value: fc.option(fc.constantFrom('x', 'y', 'p', 'old-token'), { nil: undefined }),
      secret: fc.option(fc.boolean(), { nil: undefined }),
    },
    { requiredKeys: [] },
  ),
  { nil: null },
);
const patch: fc.Arbitrary<ConfigInput> = fc.record(
  {
    size: fc.constantFrom('small', 'medium', 'large'),
    env: fc.option(fc.dictionary(name, entry, { maxKeys: 5 }), { nil: null }),
  },
  { requiredKeys: [] },
);

describe('applyConfigPatch, over generated patches', () => {
  it('is idempotent: a patch applied twice gives what it gave once, and the second shows no change', () => {
    fc.assert(
      fc.property(patch, (p) => {
        const once = applyConfigPatch(current(), p, ctx);
        fc.pre(once.problems.length === 0);
        const stored = sealPendingSync(once.config);
        const twice = applyConfigPatch(stored, p, ctx);
        expect(twice.problems).toEqual([]);
        expect(configChanges(stored, twice.config)).toEqual([]);
      }),
    );
  });

  it('changes only the names the patch names (or all, for env: null), and shows no secret value', () => {
    fc.assert(
      fc.property(patch, (p) => {
        const before = current();
        const { config } = applyConfigPatch(before, p, ctx);
        const changes = configChanges(before, config);
        for (const c of changes) {
          if (!c.field.startsWith('config.env.')) continue;
          const n = c.field.slice('config.env.'.length);
          expect(p.env === null || (p.env !== undefined && n in p.env)).toBe(true);
        }
        // A secret entry, before or after, is shown as { secret: true } and nothing else.
        const secretNow = (n: string) => config.env[n]?.secret === true;
        const secretBefore = (n: string) => before.env[n]?.secret === true;
        for (const c of changes.filter((x) => x.field.startsWith('config.env.'))) {
          const n = c.field.slice('config.env.'.length);
          if (secretBefore(n)) expect(c.from).toEqual({ secret: true });
          if (secretNow(n)) expect(c.to).toEqual({ secret: true });
        }
        for (const [n, shown] of Object.entries(configView(config).env)) if (secretNow(n)) expect(shown).toEqual({ secret: true });
      }),
    );
  });

  it('lists changes sorted by field, each leaf once', () => {
    fc.assert(
      fc.property(patch, (p) => {
        const fields = configChanges(current(), applyConfigPatch(current(), p, ctx).config).map((c) => c.field);
        expect(fields).toEqual([...new Set(fields)].sort());
      }),
    );
  });
});

/** sealPending with a sealer that answers at once (it is async only because a real one is). */
function sealPendingSync(c: PendingConfig): StoredConfig {
  return {
    ...c,
    env: Object.fromEntries(
      Object.entries(c.env).map(([n, e]) => [
        n,
        'value' in e && e.secret ? { secret: true as const, sealed: `v2:${n}`, digest: e.digest } : e,
      ]),
    ) as StoredConfig['env'],
  };
}

describe('sealPending', () => {
  it('seals each fresh secret once, by name, keeps its digest and drops its value; stored entries pass as they are', async () => {
    const { config } = applyConfigPatch(current(), { env: { NEW: { value: 'fresh', secret: true }, PLAIN: { value: 'q' } } }, ctx);
    const calls: string[] = [];
    const stored = await sealPending(config, async (n, v) => {
      calls.push(`${n}=${v}`);
      return `v2:sealed(${v.length})`;
    });
    expect(calls).toEqual(['NEW=fresh']);
    expect(stored.env).toEqual({
      PLAIN: { value: 'q', secret: false },
      TOKEN: current().env.TOKEN,
      NEW: { secret: true, sealed: 'v2:sealed(5)', digest: ctx.digest('NEW', 'fresh'), bytes: 5 },
    });
    expect(JSON.stringify(stored)).not.toContain('fresh');
    // The result is what sealPendingSync (used above for the properties) makes of it, but for the sealed text.
    expect(Object.keys(sealPendingSync(config).env)).toEqual(Object.keys(stored.env));
  });
});

describe('secretDigest', () => {
  it('binds the value to its place: the same value under another name, deployment, organization or key differs', () => {
    const d = secretDigest(KEY, place('A'), 'v');
    expect(secretDigest(KEY, place('A'), 'v')).toBe(d);
    expect(secretDigest(KEY, place('B'), 'v')).not.toBe(d);
    expect(secretDigest(KEY, { ...place('A'), deploymentId: 'dep-2' }, 'v')).not.toBe(d);
    expect(secretDigest(KEY, { ...place('A'), orgId: 'org-b' }, 'v')).not.toBe(d);
    expect(secretDigest(Buffer.alloc(32, 8), place('A'), 'v')).not.toBe(d);
    // Parts are delimited: moving characters between name and value is another digest.
    expect(secretDigest(KEY, place('AB'), 'C')).not.toBe(secretDigest(KEY, place('A'), 'BC'));
  });
});

describe('versions', () => {
  it('compare part by part as numbers, a missing part as 0', () => {
    expect(compareVersions('2.10.5', '2.9.0')).toBe(1);
    expect(compareVersions('2.9', '2.9.0')).toBe(0);
    expect(compareVersions('3.0.0', '10.0.0')).toBe(-1);
    expect(newestVersion(['2.9.0', '2.10.5', '2.10.0'])).toBe('2.10.5');
    expect(defaultConfig('superset', DEFAULT_APP_VERSIONS)).toEqual({ app_version: '5.0.0', size: 'small', env: {}, hibernation: null });
  });

  it('order as a total order would (antisymmetric, transitive)', () => {
    const version = fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.'));
    fc.assert(
      fc.property(version, version, version, (a, b, c) => {
        expect(compareVersions(a, b)).toBe(-compareVersions(b, a) || 0);
        if (compareVersions(a, b) <= 0 && compareVersions(b, c) <= 0) expect(compareVersions(a, c)).toBeLessThanOrEqual(0);
      }),
    );
  });
});

describe('revisions (decision 43)', () => {
  it('take If-Match absent, *, or the current ETag, and nothing else', () => {
    expect(etagOf(3)).toBe('"3"');
    for (const ok of [undefined, '*', ' * ', '"3"', ' "3" ']) expect(ifMatchHolds(ok, 3)).toBe(true);
    for (const bad of ['"2"', '3', 'W/"3"', '"3", "4"', '']) expect(ifMatchHolds(bad, 3)).toBe(false);
  });

  it('read a revision number from digits only, 1 to 999,999,999', () => {
    expect(revisionNumber('1')).toBe(1);
    expect(revisionNumber('999999999')).toBe(999_999_999);
    for (const raw of ['0', '01', '-1', '1.0', '1e3', '1000000000', ' 1', '', 'abc']) expect(revisionNumber(raw)).toBeUndefined();
  });
});
