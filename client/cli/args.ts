/** deployctl's options and the checks of their values; UsageError is cli-kit's, shared with the operator CLIs (local/). */
import { parseArgs } from 'node:util';
import { UsageError } from '../../cli-kit/args.js';

export { UsageError };

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  wait: { type: 'boolean' },
  timeout: { type: 'string' },
  'app-type': { type: 'string' },
  name: { type: 'string' },
  'environment-id': { type: 'string' },
  'idempotency-key': { type: 'string' },
  status: { type: 'string' },
  type: { type: 'string' },
  'resource-id': { type: 'string' },
  page: { type: 'string' },
  'per-page': { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  description: { type: 'string' },
  'forward-to': { type: 'string' },
  // Repeatable: `deployments update --secret A=@a --secret B=@b`; `events listen` takes one.
  secret: { type: 'string', multiple: true },
  'from-start': { type: 'boolean' },
  follow: { type: 'boolean' },
  since: { type: 'string' },
  size: { type: 'string' },
  'app-version': { type: 'string' },
  env: { type: 'string', multiple: true },
  unset: { type: 'string', multiple: true },
  'if-match': { type: 'string' },
  'dry-run': { type: 'boolean' },
  revision: { type: 'string' },
  until: { type: 'string' },
  username: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  'password-file': { type: 'string' },
  metric: { type: 'string' },
} as const;
export type OptionName = keyof typeof OPTIONS;
type ValueOf<O> = O extends { multiple: true } ? string[] : O extends { type: 'boolean' } ? boolean : string;
export type Values = { [K in OptionName]?: ValueOf<(typeof OPTIONS)[K]> };

/** Throws parseArgs's own error for an unknown option or a missing value. */
export function parseArgv(argv: readonly string[]): { values: Values; positionals: string[] } {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true }) as {
    values: Values;
    positionals: string[];
  };
}

/** The words of argv that are not options or their values, even when parseArgv refuses it: to show the right usage. */
export function commandWords(argv: readonly string[]): string[] {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: false, allowPositionals: true }).positionals;
}

export function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${flag} must be one of: ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

/** A comma-separated list of allowed values (`--events a,b`), or undefined without the option. */
export function listOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((v) => v.trim());
  for (const item of items) oneOf(flag, item, allowed);
  return items as T[];
}

/** A whole number of at least 0 (a --since sequence). */
export function nonNegativeInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number (got "${value}")`);
  return Number(value);
}

/** The value of a repeatable option that a command takes once. */
export function single(flag: string, values: string[] | undefined): string | undefined {
  if (values && values.length > 1) throw new UsageError(`--${flag} is taken once here`);
  return values?.[0];
}

export function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${flag} must be a positive integer (got "${value}")`);
  return Number(value);
}

/** --page and --per-page, as the list routes' query. */
export const pageQuery = (values: Values) => ({
  page: positiveInt('page', values.page),
  per_page: positiveInt('per-page', values['per-page']),
});

/** How long a wait may take: `timeoutMs` from --timeout, undefined for no limit (the default). */
export interface WaitLimit {
  timeoutMs: number | undefined;
}

/** --timeout (seconds) as a wait limit; without it, no limit. */
export function waitLimit(values: Values): WaitLimit {
  const seconds = positiveInt('timeout', values.timeout);
  return { timeoutMs: seconds === undefined ? undefined : seconds * 1000 };
}

/** For a command that waits only with --wait: its limit, or undefined not to wait; --timeout only goes with --wait. */
export function optionalWait(values: Values): WaitLimit | undefined {
  if (values.timeout !== undefined && !values.wait) throw new UsageError('--timeout goes with --wait');
  const limit = waitLimit(values);
  return values.wait ? limit : undefined;
}
