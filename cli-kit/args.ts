/**
 * Argument handling every command-line tool of the repository shares: deployctl
 * (client/cli/) and the operator CLIs of the local host (local/keys-cli.ts, users-cli.ts,
 * invoke.ts). Imports only node built-ins: deployctl reads it on every start.
 */
import { parseArgs } from 'node:util';

/** Bad arguments: the caller's mistake, reported with the usage and exit code 2. */
export class UsageError extends Error {}

/** Whether a command line asks for its usage. */
export const wantsHelp = (argv: readonly string[]): boolean => argv.includes('--help') || argv.includes('-h');

export type ParsedFlags = { values: Record<string, string | boolean | undefined>; positionals: string[] };

/** An operator command's flags (each also takes --json); a bad one is a usage error (exit 2). */
export function parseFlags(args: string[], options: Record<string, { type: 'string' }>): ParsedFlags {
  try {
    return parseArgs({ args, options: { json: { type: 'boolean' }, ...options }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}
