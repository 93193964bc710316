/**
 * Decision 41 as amended (decision 226): the whole env is at most 65,536 bytes of names and
 * values in UTF-8, refused up front; a configuration at the cap updates and rolls back with
 * no step failing on an item's size. Decision 227: env names that are Object.prototype
 * members are names like any other.
 */
import * as fc from 'fast-check';
import {
  applyConfigPatch,
  configChanges,
  DEFAULT_APP_VERSIONS,
  envSizeProblems,
  MAX_ENV_BYTES,
  type StoredConfig,
} from '../../functions/core/deployment-config.js';
import { createDeployment, deployment, operationReaches, readyDeployment } from '../helpers/api.js';
import { type CallResult, call, createKey } from '../helpers/fixtures.js';

process.env.RATE_LIMIT_PER_MINUTE = '1000';

const patch = (key: string, id: string, body: unknown, query = '') =>
  call('PATCH', `/deployments/${id}${query}`, { key, body, headers: { 'Content-Type': 'application/merge-patch+json' } });
const fields = (res: CallResult) => (res.body.error?.details ?? []).map((d: { field: string }) => d.field);

/** An env of exactly `bytes` bytes of names and values, its values as long as allowed, in `€` (3 bytes each) but the last. */
function envOf(bytes: number, fill: string): Record<string, { value: string }> {
  const env: Record<string, { value: string }> = {};
  let left = bytes;
  for (let i = 0; left > 0; i++) {
    const name = `E${String(i).padStart(2, '0')}`;
    left -= name.length;
    const euros = Math.min(4095, Math.floor((left - 1) / 3));
    const value = `${fill}${'€'.repeat(euros)}`.slice(0, 4096);
    const rest = left - Buffer.byteLength(value);
    env[name] = { value: rest > 0 && rest < 4096 - value.length ? value + 'x'.repeat(rest) : value };
    left -= Buffer.byteLength(env[name].value);
  }
  return env;
}
const bytesOf = (env: Record<string, { value: string }>) =>
  Object.entries(env).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v.value), 0);

describe('the env byte cap (decisions 41, 226)', () => {
  const ctx = { appType: 'airflow' as const, versions: DEFAULT_APP_VERSIONS, digest: (n: string, v: string) => `${n}:${v}` };

  it('counts names and values in UTF-8, secrets and kept secrets included (creation applies its config as a patch)', () => {
    const empty: StoredConfig = { app_version: '3.1.3', size: 'small', env: {} };
    const at = envOf(MAX_ENV_BYTES, 'a');
    expect(applyConfigPatch(empty, { env: at }, ctx).problems).toEqual([]);
    const over = { ...at, Z: { value: 'x' } };
    expect(applyConfigPatch(empty, { env: over }, ctx).problems.map((p) => p.field)).toEqual(['config.env']);
    // 20 secret values of 4,096 €, as the review sent them over several PATCHes.
    const secrets = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`S${i}`, { value: '€'.repeat(4096), secret: true }]));
    expect(applyConfigPatch(empty, { env: secrets }, ctx).problems.map((p) => p.field)).toEqual(['config.env']);
    // A secret already stored counts by its recorded length, or its sealed text's when it has none.
    const stored: StoredConfig = {
      ...empty,
      env: {
        OLD: { secret: true, sealed: 's'.repeat(60_000), digest: 'd' },
        NEW: { secret: true, sealed: 's', digest: 'e', bytes: 60_000 },
      },
    };
    const more = applyConfigPatch(stored, { env: { MORE: { value: 'x'.repeat(4096) } } }, ctx);
    expect(more.problems.map((p) => p.field)).toEqual(['config.env']);
    expect(applyConfigPatch(stored, { env: { NEW: null, MORE: { value: 'x'.repeat(4096) } } }, ctx).problems).toEqual([]);
    // A rollback to a revision stored before the cap checks it too (deployment-updates.ts).
    expect(envSizeProblems(new Map(Object.entries(stored.env))).map((p) => p.field)).toEqual(['config.env']);
  });

  it('refuses a PATCH once merged past the cap (dry run too); an env at the cap updates and rolls back', async () => {
    const { key } = await createKey();
    const first = envOf(MAX_ENV_BYTES, 'a');
    expect(bytesOf(first)).toBe(MAX_ENV_BYTES);
    // A request body holds at most 64 KB (decision 8): the env reaches the cap in two requests.
    const names = Object.keys(first);
    const half = (part: string[]) => Object.fromEntries(part.map((n) => [n, first[n]]));
    const d = await readyDeployment(key, { app_type: 'airflow', config: { env: half(names.slice(0, 3)) } });
    const rest = await patch(key, d.id, { config: { env: half(names.slice(3)) } });
    expect((await operationReaches(key, rest.body.data.operation_id, ['succeeded', 'failed'])).status).toBe('succeeded');
    expect(Object.keys((await deployment(key, d.id)).config.env)).toHaveLength(names.length);

    for (const query of ['', '?dry_run=true']) {
      const over = await patch(key, d.id, { config: { env: { MORE: { value: 'x' } } } }, query);
      expect(over.status).toBe(400);
      expect(fields(over)).toEqual(['config.env']);
    }

    // Every value changed, the env still at the cap: the operation carries both, the events
    // the record and its previous configuration; nothing may fail on an item's size.
    // The same values with the first character of each changed: ~64 KB from and ~64 KB to in `changes`.
    for (const part of [names.slice(0, 3), names.slice(3)]) {
      const changed = Object.fromEntries(part.map((n) => [n, { value: `b${first[n]!.value.slice(1)}` }]));
      const res = await patch(key, d.id, { config: { env: changed } });
      expect(res.status).toBe(202);
      const op = await operationReaches(key, res.body.data.operation_id, ['succeeded', 'failed']);
      expect(op.status).toBe('succeeded');
    }
    expect((await deployment(key, d.id)).config.env.E00.value.startsWith('b')).toBe(true);

    // Back to revision 2 (every value `a…`): one update that changes the whole env at the cap.
    const back = await call('POST', `/deployments/${d.id}/rollback`, { key, body: { revision: 2 } });
    expect(back.status).toBe(202);
    expect((await operationReaches(key, back.body.data.operation_id, ['succeeded', 'failed'])).status).toBe('succeeded');
    const events = await call('GET', `/events?per_page=100&resource_id=${d.id}`, { key });
    expect(events.body.data.items).toHaveLength(events.body.data.pagination.total);
  });
});

const PROTO_NAMES = ['constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf', '__defineGetter__'];
/** Over HTTP a `__proto__` name is refused at its path, `config.env.__proto__` (decision 296). */
const HTTP_NAMES = PROTO_NAMES.filter((n) => n !== '__proto__');
const RESERVED = [{ field: 'config.env.__proto__', issue: 'is a reserved name' }];
/** An object with an own property `name`, `__proto__` included (as JSON.parse makes it). */
const withName = <T>(name: string, v: T): Record<string, T> => Object.fromEntries([[name, v]]);

describe('env names that are Object.prototype members (decision 227)', () => {
  const ctx = { appType: 'airflow' as const, versions: DEFAULT_APP_VERSIONS, digest: (n: string, v: string) => `${n}:${v}` };
  const empty: StoredConfig = { app_version: '3.1.3', size: 'small', env: {} };
  const name = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/));

  it('are patched by the same rules as any other name (property)', () => {
    fc.assert(
      fc.property(name, fc.string({ maxLength: 20 }), fc.boolean(), (n, value, secret) => {
        // A new name without a value is refused, whatever the name.
        const noValue = applyConfigPatch(empty, { env: withName(n, { secret: true }) }, ctx);
        expect(noValue.problems).toEqual([{ field: `config.env.${n}.value`, issue: 'is required for a new name' }]);
        // With a value it is an own entry, shown, and a change.
        const set = applyConfigPatch(empty, { env: withName(n, { value, secret }) }, ctx);
        expect(set.problems).toEqual([]);
        expect(Object.keys(set.config.env)).toEqual([n]);
        expect(Object.hasOwn(set.config.env, n)).toBe(true);
        expect(configChanges(empty, set.config).map((c) => c.field)).toEqual([`config.env.${n}`]);
        // Removing a name the env does not have changes nothing.
        const removed = applyConfigPatch(empty, { env: withName(n, null) }, ctx);
        expect(configChanges(empty, removed.config)).toEqual([]);
        expect(Object.getPrototypeOf(removed.config.env)).toBe(Object.prototype);
      }),
      { numRuns: 300 },
    );
  });

  it('POST and PATCH over HTTP: no 500, nothing dropped, a new secret without a value refused', async () => {
    const { key } = await createKey();
    const env = Object.fromEntries(HTTP_NAMES.map((n) => [n, { value: `v-${n}` }]));
    const d = await readyDeployment(key, { app_type: 'airflow', config: { env } });
    expect(Object.keys(d.config.env).sort()).toEqual([...HTTP_NAMES].sort());
    expect(d.config.env.constructor).toEqual({ value: 'v-constructor', secret: false });
    const proto = await createDeployment(key, { app_type: 'airflow', config: { env: withName('__proto__', { value: 'x' }) } });
    expect({ status: proto.status, details: proto.body.error.details }).toEqual({ status: 400, details: RESERVED });

    const other = await readyDeployment(key, { app_type: 'airflow' });
    for (const n of HTTP_NAMES) {
      const res = await patch(key, other.id, { config: { env: withName(n, { secret: true }) } });
      expect(res.status).toBe(400);
      expect(fields(res)).toEqual([`config.env.${n}.value`]);
    }
    for (const entry of [{ value: 'x' }, { secret: true }, null]) {
      const res = await patch(key, other.id, { config: { env: withName('__proto__', entry) } });
      expect({ status: res.status, details: res.body.error.details }).toEqual({ status: 400, details: RESERVED });
    }
    const dry = await patch(key, other.id, { config: { env: withName('constructor', { value: 'x', secret: true }) } }, '?dry_run=true');
    expect(dry.status).toBe(200);
    expect(dry.body.data.changes).toEqual([{ field: 'config.env.constructor', from: null, to: { secret: true } }]);
  });
});
