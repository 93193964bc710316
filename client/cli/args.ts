/** deployctl's options and the checks of their values; UsageError is shared with the operator CLIs (infra/local). */
import { parseArgs } from 'node:util';
import { DEFAULT_WAIT_TIMEOUT_MS } from '../wait.js';

/** Bad arguments: the caller's mistake, reported with the usage and exit code 2. */
export class UsageError extends Error {}

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
} as const;
export type OptionName = keyof typeof OPTIONS;
export type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** Throws parseArgs's own error for an unknown option or a missing value. */
export function parseArgv(argv: readonly string[]): { values: Values; positionals: string[] } {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true }) as {
    values: Values;
    positionals: string[];
  };
}

export function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${flag} must be one of: ${allowed.join(', ')} (got "${value}")`);
  return value as T;
}

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${flag} must be a positive integer (got "${value}")`);
  return Number(value);
}

/** --page and --per-page, as the list routes' query. */
export const pageQuery = (values: Values) => ({
  page: positiveInt('page', values.page),
  per_page: positiveInt('per-page', values['per-page']),
});

/** --timeout in milliseconds (default 30 minutes). */
export function timeoutMs(values: Values): number {
  const seconds = positiveInt('timeout', values.timeout);
  return seconds === undefined ? DEFAULT_WAIT_TIMEOUT_MS : seconds * 1000;
}

/** For a command that waits only with --wait: how long to wait, or undefined not to; --timeout only goes with --wait. */
export function optionalWait(values: Values): number | undefined {
  if (values.timeout !== undefined && !values.wait) throw new UsageError('--timeout goes with --wait');
  const ms = timeoutMs(values);
  return values.wait ? ms : undefined;
}
