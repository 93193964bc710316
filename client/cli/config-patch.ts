/**
 * The JSON merge patch (decision 42) that `deployctl deployments update` sends, from its
 * options: --size, --app-version, --env NAME=value, --secret NAME=@file or NAME=value,
 * --unset NAME (`"NAME": null`). Checked before anything is sent.
 */
import { readFileSync } from 'node:fs';
import { SIZES } from '../../contract/vocabulary.js';
import type { BodyOf } from '../client.js';
import { oneOf, UsageError, type Values } from './args.js';

type Patch = BodyOf<'updateDeployment'>;
type EnvPatch = NonNullable<NonNullable<NonNullable<Patch['config']>['env']>>;

/** `NAME=rest` split at the first "=", or undefined without one or without a name. */
function assignment(text: string): [name: string, rest: string] | undefined {
  const at = text.indexOf('=');
  return at > 0 ? [text.slice(0, at), text.slice(at + 1)] : undefined;
}

/**
 * A secret's value: `@path` reads the file (one trailing line break dropped, as
 * `echo value > file` adds one), anything else is the value itself.
 * No message here quotes the value.
 */
function secretValue(name: string, given: string): string {
  return given.startsWith('@') ? readSecretFile(`--secret ${name}`, given.slice(1)) : given;
}

/** A secret kept in a file (one trailing line break dropped); `option` names what asked for it in the message. */
export function readSecretFile(option: string, file: string): string {
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new UsageError(`${option}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}

export function configPatch(values: Values): Patch {
  const env: EnvPatch = {};
  const set = (name: string, entry: EnvPatch[string]) => {
    if (name in env) throw new UsageError(`${name} is named twice (--env, --secret and --unset each name a variable once)`);
    env[name] = entry;
  };
  for (const text of values.env ?? []) {
    const pair = assignment(text);
    if (!pair) throw new UsageError(`--env takes NAME=value (got "${text}")`);
    set(pair[0], { value: pair[1], secret: false });
  }
  for (const text of values.secret ?? []) {
    const pair = assignment(text);
    // Never the text itself in the message: it may be the secret, given without its name.
    if (!pair) throw new UsageError('--secret takes NAME=@file or NAME=value');
    set(pair[0], { value: secretValue(pair[0], pair[1]), secret: true });
  }
  for (const name of values.unset ?? []) set(name, null);

  const size = oneOf('size', values.size, SIZES);
  const config = {
    ...(size !== undefined ? { size } : {}),
    ...(values['app-version'] !== undefined ? { app_version: values['app-version'] } : {}),
    ...(Object.keys(env).length ? { env } : {}),
  };
  if (Object.keys(config).length === 0) throw new UsageError('nothing to update: give --size, --app-version, --env, --secret or --unset');
  return { config };
}
