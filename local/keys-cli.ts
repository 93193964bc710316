/** The key admin commands (bin/keys.ts), separate from process concerns so tests can call them. */
import { type ParsedFlags, parseFlags, UsageError } from '../cli-kit/args.js';
import { table } from '../cli-kit/text.js';
import { ApiError, ERROR_CODES, type ErrorCode } from '../contract/errors.js';
import { Scope } from '../contract/schemas.js';
import { SCOPES } from '../contract/vocabulary.js';
import { findKeyById, listKeys } from '../functions/adapters/dynamo/api-key-store.js';
import { listUsage } from '../functions/adapters/dynamo/usage-store.js';
import { revokeApiKey } from '../functions/app/api-key-lookups.js';
import { createApiKey, rotateApiKey } from '../functions/app/api-keys.js';
import { type ApiKeyRecord, keySummary, ORG_ID_PATTERN, ORG_ID_RULE, ROTATION_GRACE } from '../functions/core/api-keys.js';

export interface Io {
  /** The result, on stdout. */
  out(line: string): void;
  /** A refusal, one line on stderr: a script reading stdout gets nothing rather than an error it might take for a result (decision 166). */
  fail(line: string): void;
}

/** --org, checked by the rule every key issuer uses (core/api-keys.ts). */
function orgOption(value: string | boolean | undefined): string {
  const orgId = required(value, '--org');
  if (!ORG_ID_PATTERN.test(orgId)) throw new UsageError(`--org ${ORG_ID_RULE}`);
  return orgId;
}

const required = (value: string | boolean | undefined, flag: string): string => {
  if (typeof value !== 'string' || value === '') throw new UsageError(`${flag} is required`);
  return value;
};

const publicView = (r: ApiKeyRecord) => {
  const { id, ...rest } = keySummary(r);
  return { id, org_id: r.org_id, ...rest };
};

/** Records as a table, one column per key: null as "-", lists comma-separated, "(none)" for no records. */
function printTable(rows: Record<string, unknown>[], io: Io): void {
  if (rows.length === 0) {
    io.out('(none)');
    return;
  }
  const cols = Object.keys(rows[0]!);
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? v.join(',') : String(v));
  for (const line of table([cols.map((c) => c.toUpperCase()), ...rows.map((r) => cols.map((c) => cell(r[c])))])) io.out(line.trimEnd());
}

/** How `create` and `rotate` print the new key: a table, JSON (--json), or the bare key alone (--print key, for `KEY=$(…)`). */
type NewKeyFormat = 'table' | 'json' | 'key';

function newKeyFormat(values: ParsedFlags['values']): NewKeyFormat {
  if (values.print !== undefined && values.print !== 'key') throw new UsageError('--print takes one field: key');
  if (values.print && values.json) throw new UsageError('--print and --json exclude each other');
  return values.print ? 'key' : values.json ? 'json' : 'table';
}

/** A new key as `create` and `rotate` print it: the key itself shown this once. */
function printNewKey(
  { key, record }: { key: string; record: ApiKeyRecord },
  extra: Record<string, string>,
  format: NewKeyFormat,
  io: Io,
): void {
  const { id, org_id, name, scopes, expires_at, created_at } = record;
  if (format === 'key') io.out(key);
  else if (format === 'json') io.out(JSON.stringify({ id, key, org_id, name, scopes, expires_at, created_at, ...extra }));
  else {
    printTable([{ id, org_id, name, scopes, expires_at, ...extra }], io);
    io.out(`\nKey (shown once, store it now): ${key}`);
  }
}

/** --grace: whole seconds within ROTATION_GRACE, the default when absent. */
function graceOption(value: string | boolean | undefined): number {
  if (value === undefined) return ROTATION_GRACE.default;
  const seconds = typeof value === 'string' && /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
  if (!(seconds >= ROTATION_GRACE.min && seconds <= ROTATION_GRACE.max))
    throw new UsageError(`--grace must be an integer number of seconds from ${ROTATION_GRACE.min} to ${ROTATION_GRACE.max}`);
  return seconds;
}

/** A refusal the service answered (an ApiError's message), as one line on stderr whatever the output format: exit 1. */
function refusal(message: string, io: Io): number {
  io.fail(message);
  return 1;
}

/** Runs a key command's write; the ApiErrors of `codes` are refusals, returned, not thrown. */
async function refusable<T>(write: () => Promise<T>, codes: readonly ErrorCode[]): Promise<T | ApiError> {
  try {
    return await write();
  } catch (e) {
    if (e instanceof ApiError && codes.includes(e.code)) return e;
    throw e;
  }
}

export async function runKeysCommand(argv: string[], io: Io, now = () => new Date()): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'create': {
      const { values, positionals } = parseFlags(rest, {
        org: { type: 'string' },
        name: { type: 'string' },
        scopes: { type: 'string' },
        'expires-at': { type: 'string' },
        print: { type: 'string' },
      });
      const format = newKeyFormat(values);
      if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      const orgId = orgOption(values.org);
      const name = required(values.name, '--name');
      let scopes: Scope[] | undefined;
      if (values.scopes !== undefined) {
        const list = String(values.scopes)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        const bad = list.filter((s) => !Scope.safeParse(s).success);
        if (bad.length || list.length === 0) throw new UsageError(`--scopes must be a comma-separated subset of: ${SCOPES.join(', ')}`);
        scopes = [...new Set(list)] as Scope[];
      }
      let expiresAt: string | null = null;
      if (values['expires-at'] !== undefined) {
        const raw = String(values['expires-at']);
        const t = Date.parse(raw);
        if (!/^\d{4}-\d{2}-\d{2}T/.test(raw) || Number.isNaN(t))
          throw new UsageError('--expires-at must be an ISO 8601 date-time, e.g. 2027-01-01T00:00:00Z');
        if (t <= now().getTime()) throw new UsageError(`--expires-at must be in the future (it is ${new Date(t).toISOString()})`);
        expiresAt = new Date(t).toISOString();
      }
      const made = await refusable(() => createApiKey({ orgId, name, scopes, expiresAt, now: now() }), ['KEY_LIMIT_REACHED']);
      if (made instanceof ApiError) return refusal(made.message, io);
      printNewKey(made, {}, format, io);
      return 0;
    }
    case 'rotate': {
      const { values, positionals } = parseFlags(rest, { grace: { type: 'string' }, print: { type: 'string' } });
      const format = newKeyFormat(values);
      const [id, extra] = positionals;
      if (!id || extra) throw new UsageError('rotate takes exactly one <key_id>');
      const grace = graceOption(values.grace);
      const found = await findKeyById(id);
      if (!found) return refusal(`No key with id ${id}.`, io);
      const rotated = await refusable(() => rotateApiKey(found, grace, now()), ERROR_CODES);
      if (rotated instanceof ApiError) return refusal(rotated.message, io);
      printNewKey(rotated, { rotated_from: found.id }, format, io);
      if (format === 'table') io.out(`${found.id} (${found.hint}) keeps working until ${rotated.old.expires_at}.`);
      return 0;
    }
    case 'revoke': {
      const { values, positionals } = parseFlags(rest, {});
      const [id, extra] = positionals;
      if (!id || extra) throw new UsageError('revoke takes exactly one <key_id>');
      const found = await findKeyById(id);
      if (!found) return refusal(`No key with id ${id}.`, io);
      const revoked = await revokeApiKey(found, now());
      if (values.json) io.out(JSON.stringify(publicView(revoked)));
      else io.out(`Revoked ${revoked.id} (${revoked.hint}) at ${revoked.revoked_at}.`);
      return 0;
    }
    case 'list': {
      const { values, positionals } = parseFlags(rest, { org: { type: 'string' } });
      if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
      const keys = (await listKeys(orgOption(values.org))).map(publicView);
      if (values.json) io.out(JSON.stringify(keys));
      else
        printTable(
          keys.map(({ id, name, hint, scopes, expires_at, revoked_at, last_used_at }) => ({
            id,
            name,
            hint,
            scopes,
            expires_at,
            revoked_at,
            last_used_at,
          })),
          io,
        );
      return 0;
    }
    case 'usage': {
      const { values, positionals } = parseFlags(rest, { limit: { type: 'string' } });
      const [id, extra] = positionals;
      if (!id || extra) throw new UsageError('usage takes exactly one <key_id>');
      const limit = values.limit === undefined ? 50 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be an integer from 1 to 1000');
      const entries = await listUsage(id, limit);
      if (values.json) io.out(JSON.stringify(entries));
      else
        printTable(
          entries.map(({ at, method, route, status, request_id }) => ({ at, method, route, status, request_id })),
          io,
        );
      return 0;
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'a command is required');
  }
}
