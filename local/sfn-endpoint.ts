/**
 * A Step Functions-compatible endpoint for the local stack: StartExecution,
 * DescribeExecution, GetExecutionHistory and StopExecution over the AWS JSON 1.0 protocol,
 * running the ASL
 * files with aws-local-stepfunctions. Task states call the same workflow handler
 * modules Lambda runs. Handlers reach it with the ordinary SFN client through
 * AWS_ENDPOINT_URL_SFN, so their code path is the one that runs on AWS.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Context } from 'aws-lambda';
import { ExecutionTimeoutError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { logger } from '../functions/lib/logger.js';
import { stateMachineFiles, substitute } from '../infra/state-machines.js';
import { REFUSED, signedBy } from './engine-credentials.js';
import { invokeAs } from './gateway.js';
import { refusedForeignHost } from './loopback-host.js';

const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
const WORKFLOW_DIR = path.resolve(import.meta.dirname, '../functions/workflow');

export const localStateMachineArn = (name: string) => `arn:aws:states:${REGION}:${ACCOUNT}:stateMachine:${name}`;
const localFunctionArn = (handler: string) => `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${handler}`;

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

interface Execution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: Status;
  startDate: number;
  stopDate?: number;
  output?: string;
  error?: string;
  cause?: string;
  abort(): void;
  done: Promise<void>;
  /** Its history, in GetExecutionHistory's shape. */
  history: HistoryEvent[];
}

/** One event of the interpreter's log (its type is not exported). */
type EventLog = ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

/** A history event as AWS writes it, without the data (states' input and output). */
interface HistoryEvent {
  id: number;
  previousEventId: number;
  timestamp: number;
  type: string;
  stateEnteredEventDetails?: { name: string };
  stateExitedEventDetails?: { name: string };
  lambdaFunctionFailedEventDetails?: { error?: string };
}

const EXECUTION_EVENTS: Record<string, string> = {
  ExecutionStarted: 'ExecutionStarted',
  ExecutionSucceeded: 'ExecutionSucceeded',
  ExecutionFailed: 'ExecutionFailed',
  ExecutionAborted: 'ExecutionAborted',
  ExecutionTimeout: 'ExecutionTimedOut',
};

/**
 * The events AWS writes for one of the interpreter's: a state's entry and exit, and a
 * Task's (a Lambda function's) attempts, each scheduled, started, and failed or succeeded.
 */
function historyEventsOf(e: EventLog): Omit<HistoryEvent, 'id' | 'previousEventId'>[] {
  const at = e.timestamp / 1000;
  const event = (type: string, more: Partial<HistoryEvent> = {}) => ({ timestamp: at, type, ...more });
  if (EXECUTION_EVENTS[e.type]) return [event(EXECUTION_EVENTS[e.type]!)];
  if (!('state' in e) || 'parentState' in e) return [];
  const { name, type } = e.state;
  const task = type === 'Task';
  const attempt = task ? [event('LambdaFunctionScheduled'), event('LambdaFunctionStarted')] : [];
  switch (e.type) {
    case 'StateEntered':
      return [event(`${type}StateEntered`, { stateEnteredEventDetails: { name } }), ...attempt];
    case 'StateRetried':
      return attempt;
    case 'StateFailed':
      return task
        ? [event('LambdaFunctionFailed', { lambdaFunctionFailedEventDetails: { error: 'Error' in e ? e.Error : undefined } })]
        : [];
    case 'StateExited':
      return [...(task ? [event('LambdaFunctionSucceeded')] : []), event(`${type}StateExited`, { stateExitedEventDetails: { name } })];
    default:
      return [];
  }
}

interface Machine {
  arn: string;
  machine: StateMachine;
  handlers: Record<string, (input: unknown) => Promise<unknown>>;
  /** The names of its Wait states (for `waitMs`). */
  waitStates: string[];
}

class SfnError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export type TaskHandler = (input: unknown, context?: Context) => Promise<unknown>;

/** Task state name → the workflow handler its Resource names (nested Map/Parallel states included). */
function taskHandlers(definition: unknown, load: (handler: string) => TaskHandler): Record<string, TaskHandler> {
  const out: Record<string, TaskHandler> = {};
  const visit = (states: Record<string, Record<string, unknown>>) => {
    for (const [name, state] of Object.entries(states)) {
      if (state.Type === 'Task' && typeof state.Resource === 'string') {
        const handler = state.Resource.split(':function:')[1];
        if (!handler) throw new Error(`Task ${name} has no local handler for ${state.Resource}`);
        out[name] = load(handler);
      }
      for (const inner of [state.ItemProcessor, state.Iterator, ...((state.Branches as unknown[]) ?? [])]) {
        if (inner && typeof inner === 'object' && 'States' in inner)
          visit((inner as { States: Record<string, Record<string, unknown>> }).States);
      }
    }
  };
  visit((definition as { States: Record<string, Record<string, unknown>> }).States);
  return out;
}

export interface SfnEndpointOptions {
  /** Override every Retry interval (ms), e.g. to keep tests fast. */
  retryIntervalMs?: number;
  /** Replace workflow handler modules by name (tests inject platform faults this way). */
  handlers?: Record<string, TaskHandler>;
  /**
   * Make every Wait state last this long (ms) instead of what the execution asks, the
   * interpreter's own override: tests run hours-long phases without touching the ASL.
   */
  waitMs?: number;
}

export class LocalStepFunctions {
  private readonly machines = new Map<string, Machine>();
  private readonly executions = new Map<string, Execution>();

  constructor(private readonly options: SfnEndpointOptions = {}) {
    for (const f of stateMachineFiles()) {
      const values = Object.fromEntries(Object.entries(f.functions).map(([p, h]) => [p, localFunctionArn(h)]));
      const definition = JSON.parse(substitute(f.text, values)) as StateMachineDefinition;
      const fromModule =
        (handler: string): TaskHandler =>
        async (input, context) => {
          const mod = (await import(path.join(WORKFLOW_DIR, `${handler}.ts`))) as { handler: TaskHandler };
          const started = Date.now();
          try {
            return await mod.handler(input, context);
          } finally {
            // What Lambda's REPORT line says on AWS: each step's own duration (never a phase's).
            logger.info('workflow step', { step: handler, duration_ms: Date.now() - started });
          }
        };
      // A test's replacement runs as the function it replaces, as the module would.
      const load = (handler: string): TaskHandler => {
        const run = options.handlers?.[handler] ?? fromModule(handler);
        return (input) => invokeAs('workflow', handler, (context) => run(input, context));
      };
      const arn = localStateMachineArn(f.name);
      const states = (definition as { States: Record<string, { Type?: string }> }).States;
      const waitStates = Object.keys(states).filter((s) => states[s]?.Type === 'Wait');
      this.machines.set(arn, { arn, machine: new StateMachine(definition), handlers: taskHandlers(definition, load), waitStates });
    }
  }

  start(body: { stateMachineArn?: string; name?: string; input?: string }): { executionArn: string; startDate: number } {
    const m = this.machines.get(body.stateMachineArn ?? '');
    if (!m) throw new SfnError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${body.stateMachineArn}'`);
    const name = body.name ?? crypto.randomUUID();
    const executionArn = `${m.arn.replace(':stateMachine:', ':execution:')}:${name}`;
    const input = body.input ?? '{}';
    const existing = this.executions.get(executionArn);
    if (existing) {
      // As on AWS: the same name and input while running is the same execution.
      if (existing.status === 'RUNNING' && existing.input === input) return { executionArn, startDate: existing.startDate };
      throw new SfnError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const retryOverrides =
      this.options.retryIntervalMs === undefined
        ? undefined
        : Object.fromEntries(Object.keys(m.handlers).map((s) => [s, this.options.retryIntervalMs!]));
    const waitOverrides =
      this.options.waitMs === undefined ? undefined : Object.fromEntries(m.waitStates.map((s) => [s, this.options.waitMs!]));
    const run = m.machine.run(JSON.parse(input), {
      overrides: {
        taskResourceLocalHandlers: m.handlers as never,
        ...(retryOverrides ? { retryIntervalOverrides: retryOverrides } : {}),
        ...(waitOverrides ? { waitTimeOverrides: waitOverrides } : {}),
      },
      noThrowOnAbort: true,
    });
    const execution: Execution = {
      executionArn,
      stateMachineArn: m.arn,
      name,
      input,
      status: 'RUNNING',
      startDate: Date.now() / 1000,
      abort: () => run.abort(),
      done: Promise.resolve(),
      history: [],
    };
    // The interpreter queues its events until they are read: read them into the history as they come, until it ends.
    const recorded = (async () => {
      for await (const e of run.eventLogs)
        for (const h of historyEventsOf(e))
          execution.history.push({ ...h, id: execution.history.length + 1, previousEventId: execution.history.length });
    })().catch((e: unknown) => logger.warn('the execution history stopped', { error: String(e) }));
    const ended = run.result.then(
      (output) => {
        if (execution.status !== 'RUNNING') return;
        execution.status = 'SUCCEEDED';
        execution.output = JSON.stringify(output);
        execution.stopDate = Date.now() / 1000;
      },
      (e: unknown) => {
        if (execution.status !== 'RUNNING') return;
        execution.status = e instanceof ExecutionTimeoutError ? 'TIMED_OUT' : 'FAILED';
        const err = e as { name?: string; message?: string; cause?: { name?: string; message?: string } };
        execution.error = err.cause?.name ?? err.name;
        execution.cause = err.cause?.message ?? err.message;
        execution.stopDate = Date.now() / 1000;
      },
    );
    execution.done = Promise.all([ended, recorded]).then(() => undefined);
    this.executions.set(executionArn, execution);
    return { executionArn, startDate: execution.startDate };
  }

  describe(body: { executionArn?: string }) {
    const e = this.find(body.executionArn);
    return {
      executionArn: e.executionArn,
      stateMachineArn: e.stateMachineArn,
      name: e.name,
      status: e.status,
      startDate: e.startDate,
      input: e.input,
      ...(e.stopDate ? { stopDate: e.stopDate } : {}),
      ...(e.output ? { output: e.output } : {}),
      ...(e.error ? { error: e.error } : {}),
      ...(e.cause ? { cause: e.cause } : {}),
    };
  }

  /** GetExecutionHistory: the events in order (or reversed), a page of `maxResults` (100 unless asked, at most 1,000) at a time. */
  history(body: { executionArn?: string; maxResults?: number; nextToken?: string; reverseOrder?: boolean }) {
    const events = this.find(body.executionArn).history.slice();
    if (body.reverseOrder) events.reverse();
    const from = body.nextToken ? Number(body.nextToken) : 0;
    if (!Number.isInteger(from) || from < 0 || from > events.length)
      throw new SfnError('InvalidToken', `Invalid Token: '${body.nextToken}'`);
    const size = Math.min(Math.max(Number(body.maxResults) || 100, 1), 1000);
    const page = events.slice(from, from + size);
    return { events: page, ...(from + size < events.length ? { nextToken: String(from + size) } : {}) };
  }

  stop(body: { executionArn?: string; error?: string; cause?: string }): { stopDate: number } {
    const e = this.find(body.executionArn);
    if (e.status === 'RUNNING') {
      e.status = 'ABORTED';
      e.error = body.error;
      e.cause = body.cause;
      e.stopDate = Date.now() / 1000;
      e.abort();
    }
    return { stopDate: e.stopDate ?? Date.now() / 1000 };
  }

  /** Stops every running execution (tests whose workflows wait for hours end with it). */
  stopAll(cause: string): void {
    for (const executionArn of this.executions.keys()) this.stop({ executionArn, error: 'Stopped', cause });
  }

  /** Drops an execution as a restart would (tests use it to simulate one). */
  forget(executionArn: string): void {
    this.find(executionArn).abort();
    this.executions.delete(executionArn);
  }

  /** Resolves when every execution has ended (tests use it to finish cleanly). */
  async settled(): Promise<void> {
    await Promise.all([...this.executions.values()].map((e) => e.done));
  }

  private find(arn: string | undefined): Execution {
    const e = this.executions.get(arn ?? '');
    if (!e) throw new SfnError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return e;
  }
}

const ACTIONS = {
  StartExecution: (sfn: LocalStepFunctions, body: Record<string, string>) => sfn.start(body),
  DescribeExecution: (sfn: LocalStepFunctions, body: Record<string, string>) => sfn.describe(body),
  GetExecutionHistory: (sfn: LocalStepFunctions, body: Record<string, string>) =>
    sfn.history(body as Parameters<LocalStepFunctions['history']>[0]),
  StopExecution: (sfn: LocalStepFunctions, body: Record<string, string>) => sfn.stop(body),
} as const;

/** Serves the engine over HTTP on `port` (0 picks a free one); with `accessKeyId`, to requests signed by it alone (decision 236). */
export async function startSfnEndpoint(
  sfn: LocalStepFunctions,
  port = 0,
  accessKeyId?: string,
): Promise<{ endpoint: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (refusedForeignHost(req, res)) return;
    if (accessKeyId && !signedBy(req.headers.authorization, accessKeyId)) {
      res.writeHead(403, { 'Content-Type': 'application/x-amz-json-1.0' });
      res.end(JSON.stringify(REFUSED));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0' });
        res.end(JSON.stringify(body));
      };
      const action = String(req.headers['x-amz-target'] ?? '').replace(/^AWSStepFunctions\./, '') as keyof typeof ACTIONS;
      const run = ACTIONS[action];
      if (!run) return reply(400, { __type: 'UnknownOperationException', message: `Unsupported action ${action}` });
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, string>;
        reply(200, run(sfn, body));
      } catch (e) {
        if (e instanceof SfnError) reply(400, { __type: e.type, message: e.message });
        else reply(500, { __type: 'InternalFailure', message: String(e) });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
