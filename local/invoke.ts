/**
 * `npm run invoke`: runs one handler module with an event file, like `sam local invoke`.
 * The logic lives here so tests can call it; bin/invoke.ts only wires the process.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Context } from 'aws-lambda';
import { UsageError } from '../cli-kit/args.js';
import { revokeApiKey } from '../functions/app/api-key-lookups.js';
import { createApiKey } from '../functions/app/api-keys.js';
import { ORG_ID_PATTERN, ORG_ID_RULE } from '../functions/core/api-keys.js';
import { invokeAs } from './gateway.js';

const FUNCTIONS_DIR = path.resolve(import.meta.dirname, '../functions');
/** HTTP handlers win over workflow steps of the same name. */
const KINDS = ['http', 'workflow'] as const;
const EXTENSIONS = ['.ts', '.js'];
const HANDLER_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Shown with a UsageError: bad arguments, an unknown handler or an unreadable event, the caller's mistake (exit 2). */
export const USAGE = 'npm run --silent invoke -- <handler> <event.json> [--key <key> | --org <org_id>]';

/** What the sample events (test/events/) hold in place of a key. */
export const KEY_PLACEHOLDER = 'svc_sk_live_REPLACE_ME';
/** The organization a key is made for when the event holds the placeholder and no --key or --org is given. */
export const DEFAULT_INVOKE_ORG = 'local';

export interface ResolvedHandler {
  name: string;
  kind: (typeof KINDS)[number];
  file: string;
}

export function knownHandlers(): string[] {
  const names = KINDS.flatMap((kind) => {
    const dir = path.join(FUNCTIONS_DIR, kind);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => EXTENSIONS.includes(path.extname(f)))
      .map((f) => path.basename(f, path.extname(f)));
  });
  return [...new Set(names)].sort();
}

/** functions/http/<name>, else functions/workflow/<name>. */
export function resolveHandler(name: string): ResolvedHandler {
  if (!HANDLER_NAME.test(name)) throw new UsageError(`"${name}" is not a handler name; names are kebab-case, e.g. list-environments.`);
  for (const kind of KINDS) {
    for (const ext of EXTENSIONS) {
      const file = path.join(FUNCTIONS_DIR, kind, name + ext);
      if (existsSync(file)) return { name, kind, file };
    }
  }
  throw new UsageError(`Unknown handler "${name}". Handlers: ${knownHandlers().join(', ')}.`);
}

export function readEvent(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`Cannot read the event file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}.`);
  }
  let event: unknown;
  try {
    event = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`The event file ${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}.`);
  }
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw new UsageError(`The event file ${file} must hold a JSON object.`);
  }
  return event as Record<string, unknown>;
}

type Handler = (event: unknown, context: Context) => Promise<unknown>;

/** Calls the module's `handler` export as Lambda would and returns its result. */
export async function invoke(target: ResolvedHandler, event: Record<string, unknown>): Promise<unknown> {
  if (target.kind === 'http' && (typeof event.httpMethod !== 'string' || typeof event.path !== 'string')) {
    throw new UsageError(
      `${target.name} is an HTTP handler: the event must be an API Gateway REST (v1) proxy event with httpMethod and path (see test/events/).`,
    );
  }
  const mod = (await import(target.file)) as { handler?: unknown };
  if (typeof mod.handler !== 'function') throw new Error(`${path.relative(process.cwd(), target.file)} exports no handler function.`);
  return invokeAs(target.kind, target.name, (context) => (mod.handler as Handler)(event, context));
}

/** The event with `key` as its X-API-Key: in place of the placeholder wherever it is, and as the header of an HTTP event. */
export function withKey(event: Record<string, unknown>, key: string): Record<string, unknown> {
  const keyed = JSON.parse(JSON.stringify(event).replaceAll(KEY_PLACEHOLDER, key)) as Record<string, unknown>;
  if (typeof keyed.httpMethod !== 'string') return keyed;
  const headers = { ...(keyed.headers as Record<string, string> | undefined) };
  const multi = { ...(keyed.multiValueHeaders as Record<string, string[]> | undefined) };
  for (const h of [headers, multi]) for (const name of Object.keys(h)) if (name.toLowerCase() === 'x-api-key') delete h[name];
  return { ...keyed, headers: { ...headers, 'X-API-Key': key }, multiValueHeaders: { ...multi, 'X-API-Key': [key] } };
}

/**
 * `<handler> <event.json> [--key <key> | --org <org_id>]` → the handler's result. The
 * event gets a real key (decision 167): --key's, or, when it holds the placeholder, one
 * made for --org (default "local") for this call and revoked after it.
 */
export async function runInvoke(argv: readonly string[]): Promise<unknown> {
  let parsed: { values: { key?: string; org?: string }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { key: { type: 'string' }, org: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 2) throw new UsageError(`Expected exactly two arguments, got ${positionals.length}.`);
  if (values.key !== undefined && values.org !== undefined) throw new UsageError('--key and --org exclude each other.');
  if (values.org !== undefined && !ORG_ID_PATTERN.test(values.org)) throw new UsageError(`--org ${ORG_ID_RULE}`);
  const [name, eventFile] = positionals as [string, string];
  const target = resolveHandler(name);
  const event = readEvent(eventFile);
  if (values.key !== undefined) return invoke(target, withKey(event, values.key));
  if (!JSON.stringify(event).includes(KEY_PLACEHOLDER)) return invoke(target, event);
  const made = await createApiKey({
    orgId: values.org ?? DEFAULT_INVOKE_ORG,
    name: 'npm run invoke',
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    now: new Date(),
  });
  try {
    return await invoke(target, withKey(event, made.key));
  } finally {
    await revokeApiKey(made.record, new Date());
  }
}
