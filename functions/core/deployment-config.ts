/**
 * A deployment's configuration (decisions 41-43): what it runs (`app_version`, `size`,
 * `env`), how it is stored, how it is shown, and how a JSON merge patch (RFC 7396) of it
 * is applied. A secret env value is stored sealed (by the SecretSealer, outside the core)
 * beside a keyed digest, so "set to the value it already has" is found without opening
 * it; it is shown as `{"secret": true}` and nothing else, everywhere.
 */
import { createHmac } from 'node:crypto';
import { type AppVersions, DEFAULT_APP_VERSIONS } from '../../contract/config-variables.js';
import { ENV_NAME, MAX_ENV_BYTES, MAX_ENV_ENTRIES, MAX_ENV_VALUE_LENGTH } from '../../contract/limits.js';
import type * as s from '../../contract/schemas.js';
import type { Assert, Equals } from '../../contract/type-equality.js';
import { type AppType, SIZES, type Size } from '../../contract/vocabulary.js';
import type { HibernationConfig } from './hibernation-schedule.js';

export type { HibernationConfig };

// Decision 41's choices, limits and default releases are the contract's (vocabulary.ts, limits.ts, config-variables.ts).
export { type AppVersions, DEFAULT_APP_VERSIONS, ENV_NAME, MAX_ENV_BYTES, MAX_ENV_ENTRIES, MAX_ENV_VALUE_LENGTH, SIZES, type Size };
export const DEFAULT_SIZE: Size = 'small';

/** An env entry by its name, if the env has one: never a member of Object.prototype (decision 227). */
export const envEntry = <T>(env: Readonly<Record<string, T>>, name: string): T | undefined =>
  Object.hasOwn(env, name) ? env[name] : undefined;

/** A secret as stored: sealed for `deployment-env` on its deployment, and its keyed digest. */
export interface StoredSecret {
  secret: true;
  sealed: string;
  digest: string;
  /** The value's length in UTF-8 bytes, for decision 41's cap (absent on secrets stored before it). */
  bytes?: number;
}
export type StoredEnvEntry = { value: string; secret: false } | StoredSecret;

export interface StoredConfig {
  app_version: string;
  size: Size;
  env: Record<string, StoredEnvEntry>;
  /** Decision 50's schedules; absent on configurations stored before it (read as null). */
  hibernation?: HibernationConfig | null;
}

/** A secret set by a request, before it is sealed: its value never leaves the request that sent it. */
export interface FreshSecret {
  secret: true;
  value: string;
  digest: string;
}
export type PendingEnvEntry = StoredEnvEntry | FreshSecret;
export interface PendingConfig extends Omit<StoredConfig, 'env'> {
  env: Record<string, PendingEnvEntry>;
}

export type EnvEntryView = { value: string; secret: false } | { secret: true };
export interface ConfigView {
  app_version: string;
  size: Size;
  env: Record<string, EnvEntryView>;
  hibernation: HibernationConfig | null;
}

/** One changed leaf, as a dry run and an update operation show it (decision 42). */
export interface ConfigChange {
  field: string;
  from: string | EnvEntryView | HibernationConfig | null;
  to: string | EnvEntryView | HibernationConfig | null;
}

/** The shapes above as the API's schemas declare them (contract/schemas.ts): drift fails `tsc` (decision 213). */
export type ViewsMatchSchemas = [
  Assert<Equals<EnvEntryView, s.EnvEntryView>>,
  Assert<Equals<ConfigView, s.Config>>,
  Assert<Equals<ConfigChange, s.ConfigChange>>,
];

// ---- versions ------------------------------------------------------------------

/** Version numbers compared part by part as numbers: 2.10.5 > 2.9.0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

export const newestVersion = (versions: readonly string[]): string => [...versions].sort(compareVersions).at(-1)!;

export const defaultConfig = (appType: AppType, versions: AppVersions): StoredConfig => ({
  app_version: newestVersion(versions[appType]),
  size: DEFAULT_SIZE,
  env: {},
  hibernation: null,
});

// ---- showing -------------------------------------------------------------------

export const envEntryView = (e: PendingEnvEntry): EnvEntryView => (e.secret ? { secret: true } : { value: e.value, secret: false });

export function configView(c: StoredConfig | PendingConfig): ConfigView {
  return {
    app_version: c.app_version,
    size: c.size,
    env: Object.fromEntries(Object.entries(c.env).map(([name, e]) => [name, envEntryView(e)])),
    hibernation: hibernationOf(c),
  };
}

/** Decision 50: the schedules a configuration holds (null when none, or stored before them), in their shown order of keys. */
export const hibernationOf = (c: Pick<StoredConfig, 'hibernation'>): HibernationConfig | null =>
  c.hibernation
    ? { schedules: c.hibernation.schedules.map((s) => ({ hibernate: s.hibernate, wake: s.wake })), time_zone: c.hibernation.time_zone }
    : null;

export const DEFAULT_TIME_ZONE = 'UTC';

/** `config.hibernation` in a request: null removes the schedules; an object merges into them (RFC 7396: its list replaces theirs). */
export interface HibernationInput {
  schedules?: { hibernate: string; wake: string }[];
  time_zone?: string | null;
}

/** The schedules after a patch (or a creation's `config`, over none), and what is missing for them to be complete. */
export function patchHibernation(
  current: HibernationConfig | null,
  patch: HibernationInput | null | undefined,
): { hibernation: HibernationConfig | null; problems: ConfigProblem[] } {
  if (patch === undefined) return { hibernation: current, problems: [] };
  if (patch === null) return { hibernation: null, problems: [] };
  const schedules = patch.schedules ?? current?.schedules;
  if (!schedules) return { hibernation: null, problems: [{ field: 'config.hibernation.schedules', issue: 'is required' }] };
  const time_zone = patch.time_zone === undefined ? (current?.time_zone ?? DEFAULT_TIME_ZONE) : (patch.time_zone ?? DEFAULT_TIME_ZONE);
  return { hibernation: { schedules: schedules.map((s) => ({ hibernate: s.hibernate, wake: s.wake })), time_zone }, problems: [] };
}

// ---- digests -------------------------------------------------------------------

/** Where a secret lives: its digest is bound to it, so equal values elsewhere do not show as equal. */
export interface SecretPlace {
  orgId: string;
  deploymentId: string;
  name: string;
}

/** The keyed digest of a secret value (HMAC-SHA256 under the service's digest key). */
export function secretDigest(key: Buffer, place: SecretPlace, value: string): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([place.orgId, place.deploymentId, place.name, value]))
    .digest('base64url');
}

// ---- patching ------------------------------------------------------------------

/** An env entry in a request: `null` removes it (in a patch); an object sets or merges into it. */
export interface EnvEntryInput {
  value?: string;
  secret?: boolean;
}
export interface ConfigInput {
  app_version?: string;
  size?: Size;
  env?: Record<string, EnvEntryInput | null> | null;
  hibernation?: HibernationInput | null;
}
/** A patch's `config` as its schema reads it (a creation's is narrower, so it is one too). */
export type InputMatchesSchema = Assert<Equals<ConfigInput, s.ConfigPatch>>;

/** A check against the configuration the request applies to: `field` as `details` names it. */
export interface ConfigProblem {
  field: string;
  issue: string;
}

export interface PatchContext {
  appType: AppType;
  versions: AppVersions;
  /** Digests a secret value where it would be stored. */
  digest: (name: string, value: string) => string;
}

/** The version a configuration moves to must be supported, and (but at creation) not lower. */
export function versionProblems(
  from: string,
  to: string,
  ctx: Pick<PatchContext, 'appType' | 'versions'>,
  allowDowngrade = false,
): ConfigProblem[] {
  // Staying on a release that is no longer offered is not a change of it.
  if (to === from && !allowDowngrade) return [];
  const supported = ctx.versions[ctx.appType];
  if (!supported.includes(to)) {
    const list = [...supported].sort(compareVersions).join(', ');
    return [{ field: 'config.app_version', issue: `must be a supported ${ctx.appType} release: ${list}` }];
  }
  if (!allowDowngrade && compareVersions(to, from) < 0)
    return [{ field: 'config.app_version', issue: `must not be lower than the current ${from} (no downgrades)` }];
  return [];
}

/**
 * Applies a merge patch of `config` to the current one (decision 42): in `env`, null
 * removes a name and an object merges into its entry; a new name needs `value`; a
 * secret becomes non-secret only with a new value; the version never goes down.
 * `POST /deployments` applies its `config` to the default the same way.
 */
export function applyConfigPatch(
  current: StoredConfig,
  patch: ConfigInput,
  ctx: PatchContext,
  { allowDowngrade = false } = {},
): { config: PendingConfig; problems: ConfigProblem[] } {
  const app_version = patch.app_version ?? current.app_version;
  const problems = versionProblems(current.app_version, app_version, ctx, allowDowngrade);
  // A Map, so that a name such as `constructor` or `__proto__` is a name like any other.
  const env = new Map<string, PendingEnvEntry>(patch.env === null ? [] : Object.entries(current.env));
  for (const [name, entry] of Object.entries(patch.env ?? {})) {
    const field = `config.env.${name}`;
    if (entry === null) {
      env.delete(name);
      continue;
    }
    const was = envEntry(current.env, name);
    const secret = entry.secret ?? was?.secret ?? false;
    const value = entry.value ?? (was && !was.secret ? was.value : undefined);
    if (value === undefined) {
      if (!was) problems.push({ field: `${field}.value`, issue: 'is required for a new name' });
      else if (!secret) problems.push({ field: `${field}.value`, issue: 'is required to make a secret entry non-secret' });
      else env.set(name, was); // a secret kept as it is
      continue;
    }
    if (!secret) {
      env.set(name, { value, secret: false });
      continue;
    }
    const digest = ctx.digest(name, value);
    // The same secret value again is no change: the stored entry stays as it is.
    env.set(name, was?.secret && was.digest === digest ? was : { secret: true, value, digest });
  }
  if (env.size > MAX_ENV_ENTRIES) {
    problems.push({ field: 'config.env', issue: `must have at most ${MAX_ENV_ENTRIES} entries` });
  }
  problems.push(...envSizeProblems(env));
  const hibernation = patchHibernation(hibernationOf(current), patch.hibernation);
  problems.push(...hibernation.problems);
  // Object.fromEntries defines each name as an own property, `__proto__` included.
  return {
    config: {
      app_version,
      size: patch.size ?? current.size,
      env: Object.fromEntries(env),
      // A configuration stored before decision 50 keeps its shape until a patch gives schedules.
      ...(patch.hibernation === undefined && !('hibernation' in current) ? {} : { hibernation: hibernation.hibernation }),
    },
    problems,
  };
}

const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

/** A value's UTF-8 length; a secret stored before its length was kept counts as long as its sealed text (more, never less). */
const valueBytes = (e: PendingEnvEntry): number => ('value' in e ? utf8Bytes(e.value) : (e.bytes ?? utf8Bytes(e.sealed)));

/** Decision 41's cap on the whole env, as `details` name it. */
export const envSizeProblems = (env: ReadonlyMap<string, PendingEnvEntry>): ConfigProblem[] =>
  envBytes(env) > MAX_ENV_BYTES
    ? [{ field: 'config.env', issue: `must hold at most ${MAX_ENV_BYTES} bytes of names and values (UTF-8)` }]
    : [];

/** The bytes decision 41 caps: every name and value of the env, in UTF-8. */
export function envBytes(env: ReadonlyMap<string, PendingEnvEntry>): number {
  let total = 0;
  for (const [name, e] of env) total += utf8Bytes(name) + valueBytes(e);
  return total;
}

/** What tells two entries apart: a secret by its digest, a plain value by itself. */
const entryIdentity = (e: PendingEnvEntry | undefined): string | undefined =>
  e === undefined ? undefined : e.secret ? `secret:${e.digest}` : `value:${e.value}`;

/** One change per changed leaf, `from`/`to` as shown (null when absent), sorted by field. */
export function configChanges(before: StoredConfig | PendingConfig, after: StoredConfig | PendingConfig): ConfigChange[] {
  const changes: ConfigChange[] = [];
  if (before.app_version !== after.app_version)
    changes.push({ field: 'config.app_version', from: before.app_version, to: after.app_version });
  if (before.size !== after.size) changes.push({ field: 'config.size', from: before.size, to: after.size });
  // Decision 50: the schedules are one leaf, their list replaced whole.
  const [hb, ha] = [hibernationOf(before), hibernationOf(after)];
  if (JSON.stringify(hb) !== JSON.stringify(ha)) changes.push({ field: 'config.hibernation', from: hb, to: ha });
  for (const name of new Set([...Object.keys(before.env), ...Object.keys(after.env)])) {
    const b = envEntry(before.env, name);
    const a = envEntry(after.env, name);
    if (entryIdentity(b) === entryIdentity(a)) continue;
    changes.push({ field: `config.env.${name}`, from: b ? envEntryView(b) : null, to: a ? envEntryView(a) : null });
  }
  return changes.sort((x, y) => (x.field < y.field ? -1 : x.field > y.field ? 1 : 0));
}

/** Seals every fresh secret of a pending configuration: what is stored, and given to the workflow. */
export async function sealPending(config: PendingConfig, seal: (name: string, value: string) => Promise<string>): Promise<StoredConfig> {
  const env = await Promise.all(
    Object.entries(config.env).map(
      async ([name, e]): Promise<[string, StoredEnvEntry]> =>
        'value' in e && e.secret
          ? [name, { secret: true, sealed: await seal(name, e.value), digest: e.digest, bytes: utf8Bytes(e.value) }]
          : [name, e],
    ),
  );
  return { ...config, env: Object.fromEntries(env) };
}
