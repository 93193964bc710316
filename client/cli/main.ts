/**
 * deployctl: the command-line client. runCli parses the arguments, picks the command and
 * turns what it throws into a message and an exit code; the process (argv, streams,
 * environment, time) is injected, so tests run it in-process; bin/deployctl.ts only wires
 * it to the real process.
 */
import { dataDirOf, readStackFile } from '../../cli-kit/stack-file.js';
import { checkedBaseUrl, DEFAULT_BASE_URL, DeploymentsClient } from '../client.js';
import { describeDeprecation, oncePerFeature } from '../deprecation.js';
import { ErrorResponse, NetworkError, OperationTimeoutError } from '../errors.js';
import { realClock } from '../wait.js';
import { commandWords, type OptionName, parseArgv, UsageError, type Values } from './args.js';
import type { Command } from './command.js';
import { appUserCommands } from './commands/app-users.js';
import { deploymentCommands } from './commands/deployments.js';
import { environmentCommands } from './commands/environments.js';
import { eventCommands } from './commands/events.js';
import { monitoringCommands } from './commands/monitoring.js';
import { operationCommands } from './commands/operations.js';
import { webhookCommands } from './commands/webhooks.js';
import { type CliContext, EXIT, err, out } from './context.js';
import { WaitInterrupted, watchCommand } from './progress.js';

export { type CliContext, EXIT, type Stream } from './context.js';

export const COMMANDS: Record<string, Command> = {
  ...deploymentCommands,
  ...appUserCommands,
  ...monitoringCommands,
  ...operationCommands,
  ...environmentCommands,
  ...eventCommands,
  ...webhookCommands,
};

/** What each command takes, as its usage shows it; a second line is aligned under the first. */
const SYNOPSES: Record<string, string> = {
  'deployments list': '[--status <s>] [--page <n>] [--per-page <n>]',
  'deployments get': '<deployment-id>',
  'deployments create':
    '--app-type <airflow|superset> [--name <name>] [--environment-id <id>]\n[--idempotency-key <key>] [--wait [--timeout <seconds>]]',
  'deployments delete': '<deployment-id> [--wait [--timeout <seconds>]]',
  'deployments update':
    '<deployment-id> [--size <small|medium|large>] [--app-version <v>]\n[--env <NAME=value>]... [--secret <NAME=@file|NAME=value>]... [--unset <NAME>]...\n[--if-match <revision|*>] [--idempotency-key <key>]\n[--dry-run | --wait [--timeout <seconds>]]',
  'deployments revisions': '<deployment-id> [--page <n>] [--per-page <n>]',
  'deployments rollback':
    '<deployment-id> --revision <n> [--if-match <revision|*>] [--idempotency-key <key>]\n[--dry-run | --wait [--timeout <seconds>]]',
  'deployments hibernate': '<deployment-id> [--until <timestamp>] [--idempotency-key <key>] [--wait [--timeout <seconds>]]',
  'deployments wake': '<deployment-id> [--until <timestamp>] [--idempotency-key <key>] [--wait [--timeout <seconds>]]',
  'deployments users create':
    '<deployment-id> --username <name> --email <address> --role <admin|editor|viewer>\n[--password-file <path>] [--idempotency-key <key>] [--wait [--timeout <seconds>]]',
  'deployments health': '<deployment-id>   (exit 0 healthy, 1 otherwise)',
  'deployments metrics': '<deployment-id> [--metric <name>] [--since <1h|1d|7d>]',
  'operations list': '[--status <s>] [--type <t>] [--resource-id <id>] [--page <n>] [--per-page <n>]',
  'operations get': '<operation-id>',
  'operations logs': '<operation-id> [--follow] [--since <sequence>]',
  'operations wait': '<operation-id> [--timeout <seconds>]',
  'operations cancel': '<operation-id>',
  'environments list': '[--page <n>] [--per-page <n>]',
  'events list': '[--type <t>] [--resource-id <id>] [--page <n>] [--per-page <n>]',
  'events listen': '--forward-to <url> [--type <t>,...] [--secret <whsec_...>]\n[--from-start | --since <sequence>]',
  'webhooks create': '--url <https-url> [--events <t>,...] [--description <text>]',
  'webhooks list': '[--page <n>] [--per-page <n>]',
  'webhooks get': '<webhook-id>',
  'webhooks delete': '<webhook-id>',
  'webhooks deliveries': '<webhook-id> [--page <n>] [--per-page <n>]',
};

/** `<lead><command> <synopsis>`, its second line aligned under the first. */
function synopsis(lead: string, name: string): string {
  const [first, ...more] = (SYNOPSES[name] ?? '').split('\n');
  const head = `${lead}${name} `;
  return [head + first, ...more.map((line) => ' '.repeat(head.length) + line)].join('\n');
}

const OPTIONS_HELP = `Options:
  --json        print the API's data as JSON (progress goes to stderr)
  -h, --help    show this help`;

export const USAGE = `Usage: deployctl <command> [options]

Commands:
${Object.keys(COMMANDS)
  .map((name) => synopsis('  ', name))
  .join('\n')}

${OPTIONS_HELP}

Environment:
  DEPLOY_API_KEY   your API key (svc_sk_live_...), required
  DEPLOY_API_URL   the API base URL; default: the \`npm start\` running on DATA_DIR
                   (its stack.json, DATA_DIR default .local), else ${DEFAULT_BASE_URL}

Waiting (--wait, operations wait) follows each phase change as it happens, with no time
limit unless --timeout is given; Ctrl-C stops waiting and leaves the operation running.

events listen prints a signing secret (or uses --secret), then looks for events newer than
the newest at its start (or all, --from-start, or after --since) and POSTs each,
oldest first, to --forward-to, signed as webhook deliveries are (Standard Webhooks), with
one line per event: "→ <sequence> <type> <object id> [<receiver's status>]". A receiver
that is down is reported and listening goes on; Ctrl-C stops it (exit 130). It looks again
1 s after finding events, and waits twice as long after each look that finds none, up to 30 s.

A failed or canceled operation (operations get, wait, logs --follow, --wait) is explained
on stderr: its phase, whether sending the request again may help, its last log lines.

Exit codes: 0 success; 1 the operation failed or did not finish within --timeout;
2 usage error; 3 API or network error; 4 the operation was canceled; 130 interrupted
(Ctrl-C) while waiting,
the operation goes on ("deployctl operations wait <operation-id>" watches it again), or
events listen stopped.
`;

/** The command the first words name: two (`deployments create`), or three (`deployments users create`) where such a command exists. */
function commandName(positionals: readonly string[]): string {
  const three = positionals.slice(0, 3).join(' ');
  return COMMANDS[three] ? three : positionals.slice(0, 2).join(' ');
}

/**
 * The usage of what the command words name: one command's, a group's commands
 * (`deployctl webhooks`), or the whole of it when they name nothing.
 */
export function usageOf(positionals: readonly string[]): string {
  const name = commandName(positionals);
  if (COMMANDS[name])
    return `${synopsis('Usage: deployctl ', name)}\n\n${OPTIONS_HELP}\n\nRun "deployctl --help" for the environment and exit codes.\n`;
  const group = Object.keys(COMMANDS).filter((n) => positionals.length === 1 && n.startsWith(`${positionals[0]} `));
  if (group.length) return `Usage:\n${group.map((n) => synopsis('  deployctl ', n)).join('\n')}\n\n${OPTIONS_HELP}\n`;
  return USAGE;
}

/** The command the words name, checked against its arguments and options before anything is sent. */
function commandFor(positionals: string[], values: Values): { command: Command; args: string[] } {
  const name = commandName(positionals);
  const command = COMMANDS[name];
  if (!command) throw new UsageError(`unknown command "${name}"`);
  const args = positionals.slice(name.split(' ').length);
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
  return { command, args };
}

function describeApiError(e: ErrorResponse): string {
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

/** Says on stderr what went wrong and gives the exit code; rethrows what is not a known failure. */
function failure(ctx: CliContext, e: unknown, positionals: readonly string[]): number {
  if (e instanceof UsageError) {
    err(ctx, `deployctl: ${e.message}\n\n${usageOf(positionals)}`);
    return EXIT.usage;
  }
  if (e instanceof ErrorResponse) {
    err(ctx, describeApiError(e));
    return EXIT.apiError;
  }
  if (e instanceof NetworkError) {
    err(ctx, `Error: ${e.message}`);
    return EXIT.apiError;
  }
  if (e instanceof OperationTimeoutError) {
    err(ctx, `${e.message}\nStill running: ${watchCommand(e.operationId)}`);
    return EXIT.operationFailed;
  }
  if (e instanceof WaitInterrupted) {
    const seen = e.lastSeen ? `; last seen: ${e.lastSeen.status}, phase ${e.lastSeen.progress.phase}` : '';
    err(ctx, `Stopped waiting; operation ${e.operationId} goes on (it was not canceled${seen}).`);
    err(ctx, `Still running: ${watchCommand(e.operationId)}`);
    return EXIT.interrupted;
  }
  if (ctx.signal?.aborted) {
    err(ctx, 'Interrupted.');
    return EXIT.interrupted;
  }
  throw e;
}

/** Runs one deployctl command; resolves with the exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgv(argv));
  } catch (e) {
    err(ctx, `deployctl: ${(e as Error).message}\n\n${usageOf(commandWords(argv))}`);
    return EXIT.usage;
  }
  if (positionals.length === 0) {
    (values.help ? out : err)(ctx, USAGE);
    return values.help ? EXIT.ok : EXIT.usage;
  }
  if (values.help) {
    const usage = usageOf(positionals);
    if (usage === USAGE) return failure(ctx, new UsageError(`unknown command "${positionals.slice(0, 2).join(' ')}"`), positionals);
    out(ctx, usage);
    return EXIT.ok;
  }
  try {
    const { command, args } = commandFor(positionals, values);
    const apiKey = ctx.env.DEPLOY_API_KEY;
    if (!apiKey) throw new UsageError('set DEPLOY_API_KEY to your API key (svc_sk_live_...)');
    // An explicit URL, else the `npm start` running on DATA_DIR (its stack file), else the default (decision 165).
    const baseUrl = ctx.env.DEPLOY_API_URL || readStackFile(dataDirOf(ctx.env))?.api_url || DEFAULT_BASE_URL;
    try {
      checkedBaseUrl(baseUrl);
    } catch (e) {
      throw new UsageError(`DEPLOY_API_URL: ${(e as Error).message}`);
    }
    // Told once per run on stderr, so that scripts reading stdout are not disturbed (decision 44).
    const onDeprecation = oncePerFeature((notice) => err(ctx, `deployctl: warning: ${describeDeprecation(notice)}`));
    const api = new DeploymentsClient({ baseUrl, apiKey, fetch: ctx.fetch, userAgent: 'deployctl', onDeprecation });
    return await command.run({ api, args, values, ctx, clock: ctx.clock ?? realClock });
  } catch (e) {
    return failure(ctx, e, positionals);
  }
}
