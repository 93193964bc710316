/**
 * The process's one logger: structured JSON, one object per line, in the shape Powertools
 * for AWS Lambda writes (`level`, `message`, `timestamp`, `service`, the invocation's
 * Lambda context, `xray_trace_id`, then the appended keys and the line's own fields; an
 * Error as `{ name, location, message, stack, cause }`, its stack pointing at the
 * TypeScript sources). INFO and below go to stdout, WARN and above to stderr; Lambda sends
 * both to the function's log group. The HTTP stack appends request id, route, key id and
 * organization to every line of a request. Callers never pass secrets: API keys are
 * referred to by id, never by value, hash or header.
 *
 * Those keys and the context belong to one invocation. Lambda runs one invocation per
 * process at a time, so outside `runInvocation` the process holds them; the local host
 * runs many at once in one process, each inside `runInvocation` (infra/local/current-function.ts),
 * so one request's keys never land on another's lines.
 *
 * Written here rather than taken from Powertools Logger: that library added 21 KB to every
 * function's bundle, the difference between meeting the cold-start goal and missing it
 * (README, Performance), and this service uses none of its other features.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from 'aws-lambda';
import { sourceStack } from './source-stack.js';

const LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'CRITICAL', 'SILENT'] as const;
type Level = (typeof LEVELS)[number];
type Fields = Record<string, unknown>;

/** LOG_LEVEL in any case (e.g. `debug`, `silent`); INFO when unset or unknown. */
function levelFrom(raw: string | undefined): Level {
  const upper = raw?.toUpperCase();
  return LEVELS.find((l) => l === upper) ?? 'INFO';
}

/** The first frame of a stack that names a file: `path:line:column`. */
function locationOf(stack: string | undefined): string {
  const frame = stack?.split('\n').find((l) => /^\s+at /.test(l));
  return /\(?([^\s()]+:\d+:\d+)\)?$/.exec(frame ?? '')?.[1] ?? '';
}

/** An Error as a log field, its cause and its own fields (an SDK error's `$metadata`, say) included. */
function errorFields(error: Error): Fields {
  const { name, message, cause, ...own } = error as Error & Fields;
  const stack = error.stack && sourceStack(error.stack);
  return {
    name,
    location: locationOf(stack),
    message,
    stack,
    ...(cause === undefined ? {} : { cause: cause instanceof Error ? errorFields(cause) : cause }),
    ...own,
  };
}

/** JSON.stringify's replacer for a line: Errors spelled out, BigInts as strings, a cycle cut. */
function replacer() {
  const seen = new WeakSet<object>();
  return (_key: string, value: unknown) => {
    if (value instanceof Error) return errorFields(value);
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}

/** What one invocation's lines carry besides their own fields. */
interface Invocation {
  keys: Fields;
  context: Fields;
}
const invocations = new AsyncLocalStorage<Invocation>();

/** Runs `work` as one invocation: the keys and context it sets are its own, and end with it. */
export const runInvocation = <T>(work: () => T): T => invocations.run({ keys: {}, context: {} }, work);

export class Logger {
  readonly #threshold: number;
  readonly #process: Invocation = { keys: {}, context: {} };
  #coldStart = true;

  constructor(
    readonly serviceName: string,
    level: Level,
  ) {
    this.#threshold = LEVELS.indexOf(level);
  }

  get #invocation(): Invocation {
    return invocations.getStore() ?? this.#process;
  }

  /** Fields every later line of the invocation carries, until resetKeys. */
  appendKeys(keys: Fields): void {
    Object.assign(this.#invocation.keys, keys);
  }

  resetKeys(): void {
    this.#invocation.keys = {};
  }

  /** The invocation's Lambda context on every later line; the process's first invocation is its cold start. */
  addContext(context: Context): void {
    this.#invocation.context = {
      cold_start: this.#coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: Number(context.memoryLimitInMB),
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    this.#coldStart = false;
  }

  debug(message: string, fields?: Fields): void {
    this.#write('DEBUG', message, fields);
  }

  info(message: string, fields?: Fields): void {
    this.#write('INFO', message, fields);
  }

  warn(message: string, fields?: Fields): void {
    this.#write('WARN', message, fields);
  }

  error(message: string, fields?: Fields): void {
    this.#write('ERROR', message, fields);
  }

  #write(level: Level, message: string, fields: Fields = {}): void {
    const rank = LEVELS.indexOf(level);
    if (rank < this.#threshold) return;
    // With active tracing, Lambda sets the invocation's trace header: `Root=1-…;Parent=…;Sampled=1`.
    const trace = /Root=([^;]+)/.exec(process.env._X_AMZN_TRACE_ID ?? '')?.[1];
    const line = {
      level,
      message,
      timestamp: new Date().toISOString(),
      service: this.serviceName,
      ...this.#invocation.context,
      ...(trace ? { xray_trace_id: trace } : {}),
      ...this.#invocation.keys,
      ...fields,
    };
    (rank >= LEVELS.indexOf('WARN') ? process.stderr : process.stdout).write(`${JSON.stringify(line, replacer())}\n`);
  }
}

export const logger = new Logger('deployment-management-api', levelFrom(process.env.LOG_LEVEL));
