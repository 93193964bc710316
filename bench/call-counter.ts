/**
 * Attributes the AWS calls a process makes to the HTTP request that caused them. Each
 * request served through `attributeRequests(server)` runs in its own AsyncLocalStorage
 * context; a middleware on the shared DynamoDB client (`ddb`) and a wrapper on the SFN
 * client's `send` count the calls made inside it. Calls made anywhere else (the local
 * workflow engine's steps, which run from the Step Functions endpoint's own requests,
 * the webhook pipeline, the benchmark's own reads) belong to no request and are not counted.
 *
 * Sequential calls: a call that starts while no other DynamoDB call of the same request
 * is in flight opens a new round trip; calls that start while one is in flight overlap
 * it. `sequential` counts the round trips a request waited for one after another (the
 * critical path's length when every overlapping call is independent of the one in flight).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type http from 'node:http';
import { SFNClient } from '@aws-sdk/client-sfn';
import * as documentCommands from '@aws-sdk/lib-dynamodb';
import { watchDynamoCalls } from '../test/helpers/sdk-calls.js';

/** One DynamoDB call as the code sent it (the document client's command and its input), for replay. */
export interface RecordedCall {
  command: new (input: never) => unknown;
  input: Record<string, unknown>;
  /** The round trip (0, 1, …) it started in. */
  round: number;
}

export interface RequestCalls {
  /** DynamoDB calls, retries of one call not counted apart. */
  calls: number;
  /** Round trips waited for one after another (see above). */
  sequential: number;
  /** Command names in the order they started. */
  commands: string[];
  startExecutions: number;
  recorded: RecordedCall[];
  inFlight: number;
}

const requests = new AsyncLocalStorage<RequestCalls>();

const fresh = (): RequestCalls => ({ calls: 0, sequential: 0, commands: [], startExecutions: 0, recorded: [], inFlight: 0 });

let installed = false;

/** Installs the counting watcher on `ddb` and the wrapper on SFNClient (once per process). */
export function installCallCounter(): void {
  if (installed) return;
  installed = true;
  watchDynamoCalls(
    'benchCallCounter',
    async (call, send) => {
      const r = requests.getStore();
      if (!r) return send();
      if (r.inFlight === 0) r.sequential++;
      r.inFlight++;
      r.calls++;
      r.commands.push(call.command.replace(/Command$/, ''));
      r.recorded.push({ command: commandClass(call.command), input: structuredClone(call.input), round: r.sequential - 1 });
      try {
        return await send();
      } finally {
        r.inFlight--;
      }
    },
    'high',
  );
  const send = SFNClient.prototype.send;
  SFNClient.prototype.send = function (this: SFNClient, ...args: unknown[]) {
    const r = requests.getStore();
    if (r && (args[0] as object | undefined)?.constructor?.name === 'StartExecutionCommand') r.startExecutions++;
    return (send as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof send;
}

/**
 * The document client's command for a low-level command name: the middleware runs
 * before the document client marshalls, so it sees GetItemCommand with plain values.
 */
function commandClass(name: string): new (input: never) => unknown {
  const doc = name.replace(/Item(s?)Command$/, '$1Command').replace(/^(Transact(?:Get|Write)|Batch(?:Get|Write))sCommand$/, '$1Command');
  const found = (documentCommands as unknown as Record<string, unknown>)[doc];
  if (typeof found !== 'function') throw new Error(`benchCallCounter: no document client command for ${name}`);
  return found as new (
    input: never,
  ) => unknown;
}

/** Runs `fn` as one attributed request; its record keeps counting calls that start later in the same context. */
export function attributed<T>(fn: () => T): { calls: RequestCalls; value: T } {
  const calls = fresh();
  return { calls, value: requests.run(calls, fn) };
}

/**
 * Makes `server` run each request in its own context and hand its record to `sink`
 * with the response's status (read the counts once the run is over: calls a request
 * starts after its response still count).
 */
export function attributeRequests(
  server: http.Server,
  sink: (calls: RequestCalls, status: number, req: http.IncomingMessage) => void,
): void {
  const listeners = server.listeners('request') as ((req: http.IncomingMessage, res: http.ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const calls = fresh();
    res.once('finish', () => sink(calls, res.statusCode, req));
    requests.run(calls, () => {
      for (const l of listeners) l(req, res);
    });
  });
}
