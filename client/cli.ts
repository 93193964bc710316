/**
 * deployctl: the command-line client. All logic is here, with the process (argv,
 * streams, environment, time) injected, so tests run it in-process; bin/deployctl.ts
 * only wires it to the real process.
 */
import { parseArgs } from 'node:util';
import { APP_TYPES, DEPLOYMENT_STATUSES, OPERATION_STATUSES, OPERATION_TYPES } from '../functions/core/schemas.js';
import { DEFAULT_BASE_URL, type Deployment, DeploymentsClient, type Environment, type Operation } from './client.js';
import { ApiError, formatDuration, NetworkError, OperationTimeoutError } from './errors.js';
import { type Clock, DEFAULT_WAIT_TIMEOUT_MS, type RetryInfo, realClock, waitForOperation } from './wait.js';

export const EXIT = { ok: 0, operationFailed: 1, usage: 2, apiError: 3, interrupted: 130 } as const;

export interface Stream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** Terminal width, to keep the progress line on one line. */
  columns?: number;
}

export interface CliContext {
  stdout: Stream;
  stderr: Stream;
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  clock?: Clock;
  /** Aborts a wait (Ctrl-C). */
  signal?: AbortSignal;
}

export const USAGE = `Usage: deployctl <command> [options]

Commands:
  deployments list [--status <s>] [--page <n>] [--per-page <n>]
  deployments get <deployment-id>
  deployments create --app-type <airflow|superset> [--name <name>] [--environment-id <id>]
                     [--idempotency-key <key>] [--wait [--timeout <seconds>]]
  deployments delete <deployment-id> [--wait [--timeout <seconds>]]
  operations list [--status <s>] [--type <t>] [--resource-id <id>] [--page <n>] [--per-page <n>]
  operations get <operation-id>
  operations wait <operation-id> [--timeout <seconds>]
  operations cancel <operation-id>
  environments list [--page <n>] [--per-page <n>]

Options:
  --json        print the API's data as JSON (progress goes to stderr)
  -h, --help    show this help

Environment:
  DEPLOY_API_KEY   your API key (svc_sk_live_...), required
  DEPLOY_API_URL   the API base URL, default ${DEFAULT_BASE_URL}

Exit codes: 0 success; 1 the operation failed, was canceled or did not finish within
--timeout (default 30 minutes); 2 usage error; 3 API or network error.
`;

class UsageError extends Error {}

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
type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

interface Command {
  /** Positional arguments after the two command words. */
  args: string[];
  options: OptionName[];
  run(c: Run): Promise<number>;
}

interface Run {
  api: DeploymentsClient;
  args: string[];
  values: Values;
  ctx: CliContext;
  clock: Clock;
}

// ---- argument checks -------------------------------------------------------------

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
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

function timeoutMs(values: Values): number {
  const seconds = positiveInt('timeout', values.timeout);
  return seconds === undefined ? DEFAULT_WAIT_TIMEOUT_MS : seconds * 1000;
}

// ---- output ----------------------------------------------------------------------

const out = (ctx: CliContext, text: string) => ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
const err = (ctx: CliContext, text: string) => ctx.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
const json = (ctx: CliContext, value: unknown) => out(ctx, JSON.stringify(value, null, 2));

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

function pageFooter(p: { page: number; pages: number; total: number }): string {
  return `page ${p.page} of ${Math.max(p.pages, 1)}, ${p.total} in total`;
}

function fields(pairs: [string, string | undefined | null][]): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null) as [string, string][];
  const width = Math.max(...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${`${k}:`.padEnd(width + 1)} ${v}`).join('\n');
}

const showDeployment = (d: Deployment) =>
  fields([
    ['id', d.id],
    ['name', d.name],
    ['app_type', d.app_type],
    ['status', d.status],
    ['url', d.url],
    ['environment', d.environment_id],
    ['created_at', d.created_at],
    ['operation', d.links.operation],
  ]);

const showOperation = (o: Operation) =>
  fields([
    ['id', o.id],
    ['type', o.type],
    ['status', o.status],
    ['phase', o.progress.phase],
    ['message', o.progress.message],
    ['resource', `${o.resource.type} ${o.resource.id}`],
    ['requested_at', o.requested_at],
    ['started_at', o.started_at],
    ['ended_at', o.ended_at],
    ['error', o.error ? `${o.error.code}: ${o.error.message}` : undefined],
    ['result', o.result ? JSON.stringify(o.result) : undefined],
  ]);

/**
 * The live progress of a wait, on stderr: on a terminal a spinner line redrawn in place
 * with the elapsed time; otherwise one plain line per change of status or phase.
 */
class ProgressView {
  private static readonly FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  private frame = 0;
  private text = 'waiting for the first poll';
  private lastKey = '';
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly started: number;

  constructor(
    private readonly ctx: CliContext,
    private readonly clock: Clock,
    private readonly label: string,
  ) {
    this.started = clock.now();
    if (ctx.stderr.isTTY) {
      this.draw();
      this.timer = setInterval(() => this.draw(), 100);
      this.timer.unref?.();
    } else {
      err(ctx, `${this.stamp()} ${label}: waiting`);
    }
  }

  private stamp(): string {
    return `[${formatDuration(this.clock.now() - this.started).padStart(6)}]`;
  }

  private draw(): void {
    const spin = ProgressView.FRAMES[this.frame++ % ProgressView.FRAMES.length];
    const elapsed = ` (${formatDuration(this.clock.now() - this.started)})`;
    let line = `${spin} ${this.label}: ${this.text}`;
    // A line longer than the terminal wraps, and \r then redraws only its last part.
    const room = (this.ctx.stderr.columns ?? 0) - 1 - elapsed.length;
    if (room > 10 && line.length > room) line = `${line.slice(0, room - 1)}…`;
    this.ctx.stderr.write(`\r\x1b[2K${line}${elapsed}`);
  }

  progress(op: Operation): void {
    this.text = `${op.status} · ${op.progress.phase} · ${op.progress.message}`;
    const key = `${op.status}/${op.progress.phase}`;
    if (this.ctx.stderr.isTTY) this.draw();
    else if (key !== this.lastKey) err(this.ctx, `${this.stamp()} ${op.status} ${op.progress.phase}: ${op.progress.message}`);
    this.lastKey = key;
  }

  retry(info: RetryInfo): void {
    const why = info.error instanceof ApiError ? `${info.error.status} ${info.error.code}` : info.error.reason;
    const text = `retrying in ${formatDuration(info.delayMs)} (${why})`;
    if (this.ctx.stderr.isTTY) {
      this.text = text;
      this.draw();
    } else err(this.ctx, `${this.stamp()} ${text}`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.ctx.stderr.isTTY) this.ctx.stderr.write('\r\x1b[2K');
  }
}

/** Waits for an operation, showing progress; returns the terminal operation. */
async function follow(r: Run, operationId: string, label: string): Promise<Operation> {
  const view = new ProgressView(r.ctx, r.clock, label);
  try {
    return await waitForOperation(r.api, operationId, {
      clock: r.clock,
      signal: r.ctx.signal,
      timeoutMs: timeoutMs(r.values),
      onProgress: (op) => view.progress(op),
      onRetry: (info) => view.retry(info),
    });
  } finally {
    view.stop();
  }
}

function operationOutcome(r: Run, op: Operation): number {
  if (op.status === 'succeeded') return EXIT.ok;
  const why = op.error ? `${op.error.code}: ${op.error.message}` : op.progress.message;
  err(r.ctx, `Operation ${op.id} ${op.status} in phase ${op.progress.phase}: ${why}`);
  return EXIT.operationFailed;
}

// ---- commands --------------------------------------------------------------------

const LIST = ['page', 'per-page'] as const;

const COMMANDS: Record<string, Command> = {
  'deployments list': {
    args: [],
    options: [...LIST, 'status'],
    async run({ api, values, ctx }) {
      const page = await api.listDeployments({
        status: oneOf('status', values.status, DEPLOYMENT_STATUSES),
        page: positiveInt('page', values.page),
        per_page: positiveInt('per-page', values['per-page']),
      });
      if (values.json) {
        json(ctx, page);
        return EXIT.ok;
      }
      if (page.items.length === 0) out(ctx, 'No deployments.');
      else
        out(
          ctx,
          table([
            ['ID', 'NAME', 'APP', 'STATUS', 'CREATED', 'URL'],
            ...page.items.map((d) => [d.id, d.name, d.app_type, d.status, d.created_at, d.url ?? '']),
          ]),
        );
      out(ctx, pageFooter(page.pagination));
      return EXIT.ok;
    },
  },
  'deployments get': {
    args: ['deployment-id'],
    options: [],
    async run({ api, args, values, ctx }) {
      const d = await api.getDeployment(args[0]!);
      if (values.json) json(ctx, d);
      else out(ctx, showDeployment(d));
      return EXIT.ok;
    },
  },
  'deployments create': {
    args: [],
    options: ['app-type', 'name', 'environment-id', 'idempotency-key', 'wait', 'timeout'],
    async run(r) {
      const { api, values, ctx } = r;
      const appType = oneOf('app-type', values['app-type'], APP_TYPES);
      if (!appType) throw new UsageError('--app-type is required (airflow or superset)');
      if (values.timeout !== undefined && !values.wait) throw new UsageError('--timeout goes with --wait');
      timeoutMs(values);
      const accepted = await api.createDeployment(
        {
          app_type: appType,
          ...(values.name !== undefined ? { name: values.name } : {}),
          ...(values['environment-id'] !== undefined ? { environment_id: values['environment-id'] } : {}),
        },
        { idempotencyKey: values['idempotency-key'] },
      );
      if (!values.wait) {
        if (values.json) {
          json(ctx, accepted);
          return EXIT.ok;
        }
        out(ctx, `Deployment ${accepted.deployment_id} is being created (operation ${accepted.operation_id}).`);
        out(ctx, `Follow it with: deployctl operations wait ${accepted.operation_id}`);
        return EXIT.ok;
      }
      if (!values.json) err(ctx, `Deployment ${accepted.deployment_id} is being created (operation ${accepted.operation_id}).`);
      const op = await follow(r, accepted.operation_id, `creating ${accepted.deployment_id}`);
      const deployment = await api.getDeployment(accepted.deployment_id);
      if (values.json) json(ctx, { deployment, operation: op });
      else if (op.status === 'succeeded')
        out(ctx, `Deployment ${deployment.name} (${deployment.id}) is ${deployment.status}: ${deployment.url ?? '(no url)'}`);
      return operationOutcome(r, op);
    },
  },
  'deployments delete': {
    args: ['deployment-id'],
    options: ['wait', 'timeout'],
    async run(r) {
      const { api, args, values, ctx } = r;
      if (values.timeout !== undefined && !values.wait) throw new UsageError('--timeout goes with --wait');
      timeoutMs(values);
      const accepted = await api.deleteDeployment(args[0]!);
      if (!values.wait) {
        if (values.json) {
          json(ctx, accepted);
          return EXIT.ok;
        }
        out(ctx, `Deployment ${accepted.deployment_id} is being destroyed (operation ${accepted.operation_id}).`);
        out(ctx, `Follow it with: deployctl operations wait ${accepted.operation_id}`);
        return EXIT.ok;
      }
      if (!values.json) err(ctx, `Deployment ${accepted.deployment_id} is being destroyed (operation ${accepted.operation_id}).`);
      const op = await follow(r, accepted.operation_id, `destroying ${accepted.deployment_id}`);
      const deployment = await api.getDeployment(accepted.deployment_id);
      if (values.json) json(ctx, { deployment, operation: op });
      else if (op.status === 'succeeded') out(ctx, `Deployment ${deployment.name} (${deployment.id}) is ${deployment.status}.`);
      return operationOutcome(r, op);
    },
  },
  'operations list': {
    args: [],
    options: [...LIST, 'status', 'type', 'resource-id'],
    async run({ api, values, ctx }) {
      const page = await api.listOperations({
        status: oneOf('status', values.status, OPERATION_STATUSES),
        type: oneOf('type', values.type, OPERATION_TYPES),
        resource_id: values['resource-id'],
        page: positiveInt('page', values.page),
        per_page: positiveInt('per-page', values['per-page']),
      });
      if (values.json) {
        json(ctx, page);
        return EXIT.ok;
      }
      if (page.items.length === 0) out(ctx, 'No operations.');
      else
        out(
          ctx,
          table([
            ['ID', 'TYPE', 'STATUS', 'PHASE', 'RESOURCE', 'REQUESTED'],
            ...page.items.map((o) => [o.id, o.type, o.status, o.progress.phase, o.resource.id, o.requested_at]),
          ]),
        );
      out(ctx, pageFooter(page.pagination));
      return EXIT.ok;
    },
  },
  'operations get': {
    args: ['operation-id'],
    options: [],
    async run({ api, args, values, ctx }) {
      const o = await api.getOperation(args[0]!);
      if (values.json) json(ctx, o);
      else out(ctx, showOperation(o));
      return EXIT.ok;
    },
  },
  'operations wait': {
    args: ['operation-id'],
    options: ['timeout'],
    async run(r) {
      timeoutMs(r.values);
      const op = await follow(r, r.args[0]!, r.args[0]!);
      if (r.values.json) json(r.ctx, op);
      else out(r.ctx, showOperation(op));
      return operationOutcome(r, op);
    },
  },
  'operations cancel': {
    args: ['operation-id'],
    options: [],
    async run({ api, args, values, ctx }) {
      const o = await api.cancelOperation(args[0]!);
      if (values.json) json(ctx, o);
      else out(ctx, `Operation ${o.id} is ${o.status}.`);
      return EXIT.ok;
    },
  },
  'environments list': {
    args: [],
    options: [...LIST],
    async run({ api, values, ctx }) {
      const page = await api.listEnvironments({
        page: positiveInt('page', values.page),
        per_page: positiveInt('per-page', values['per-page']),
      });
      if (values.json) {
        json(ctx, page);
        return EXIT.ok;
      }
      out(
        ctx,
        table([
          ['ID', 'NAME', 'DEFAULT', 'CREATED'],
          ...page.items.map((e: Environment) => [e.id, e.name, e.is_default ? 'yes' : 'no', e.created_at]),
        ]),
      );
      out(ctx, pageFooter(page.pagination));
      return EXIT.ok;
    },
  },
};

function describeApiError(e: ApiError): string {
  const details = e.details?.length ? `\n${e.details.map((d) => `  ${d.field}: ${d.issue}`).join('\n')}` : '';
  const extra = [
    `HTTP ${e.status}`,
    e.requestId ? `request ${e.requestId}` : '',
    e.operationId ? `operation ${e.operationId}` : '',
    e.retryAfter !== undefined ? `retry after ${e.retryAfter}s` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `Error: ${e.code}: ${e.message} (${extra})${details}`;
}

/** Runs one deployctl command; resolves with the exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true }) as {
      values: Values;
      positionals: string[];
    });
  } catch (e) {
    err(ctx, `deployctl: ${(e as Error).message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (values.help || positionals.length === 0) {
    (values.help ? out : err)(ctx, USAGE);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  const name = positionals.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  try {
    if (!command) throw new UsageError(`unknown command "${name}"`);
    const args = positionals.slice(2);
    if (args.length !== command.args.length) {
      throw new UsageError(
        command.args.length
          ? `${name} takes ${command.args.map((a) => `<${a}>`).join(' ')}`
          : `${name} takes no arguments (got "${args.join(' ')}")`,
      );
    }
    const allowed = new Set<OptionName>([...command.options, 'json', 'help']);
    const extra = (Object.keys(values) as OptionName[]).filter((k) => !allowed.has(k));
    if (extra.length) throw new UsageError(`${name} does not take ${extra.map((k) => `--${k}`).join(', ')}`);
    const apiKey = ctx.env.DEPLOY_API_KEY;
    if (!apiKey) throw new UsageError('set DEPLOY_API_KEY to your API key (svc_sk_live_...)');
    const api = new DeploymentsClient({
      baseUrl: ctx.env.DEPLOY_API_URL || DEFAULT_BASE_URL,
      apiKey,
      fetch: ctx.fetch,
      userAgent: 'deployctl',
    });
    return await command.run({ api, args, values, ctx, clock: ctx.clock ?? realClock });
  } catch (e) {
    if (e instanceof UsageError) {
      err(ctx, `deployctl: ${e.message}\nRun "deployctl --help" for usage.`);
      return EXIT.usage;
    }
    if (e instanceof ApiError) {
      err(ctx, describeApiError(e));
      return EXIT.apiError;
    }
    if (e instanceof NetworkError) {
      err(ctx, `Error: ${e.message}`);
      return EXIT.apiError;
    }
    if (e instanceof OperationTimeoutError) {
      err(ctx, e.message);
      return EXIT.operationFailed;
    }
    if (ctx.signal?.aborted) {
      err(ctx, 'Stopped waiting; the operation goes on (see "deployctl operations wait <operation-id>").');
      return EXIT.interrupted;
    }
    throw e;
  }
}
