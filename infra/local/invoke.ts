/**
 * `npm run invoke`: runs one handler module with an event file, like `sam local invoke`.
 * The logic lives here so tests can call it; bin/invoke.ts only wires the process.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Context } from 'aws-lambda';
import { UsageError } from '../../client/cli/args.js';
import { runAsFunction } from './current-function.js';
import { lambdaContext } from './gateway.js';

const FUNCTIONS_DIR = path.resolve(import.meta.dirname, '../../functions');
/** HTTP handlers win over workflow steps of the same name. */
const KINDS = ['http', 'workflow'] as const;
const EXTENSIONS = ['.ts', '.js'];
const HANDLER_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Shown with a UsageError: bad arguments, an unknown handler or an unreadable event, the caller's mistake (exit 2). */
export const USAGE = 'npm run --silent invoke -- <handler> <event.json>';

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
  return runAsFunction(target.name, () => (mod.handler as Handler)(event, lambdaContext(target.kind, target.name)));
}

/** `<handler> <event.json>` → the handler's result. */
export async function runInvoke(argv: readonly string[]): Promise<unknown> {
  if (argv.length !== 2) throw new UsageError(`Expected exactly two arguments, got ${argv.length}.`);
  const [name, eventFile] = argv as [string, string];
  const target = resolveHandler(name);
  return invoke(target, readEvent(eventFile));
}
