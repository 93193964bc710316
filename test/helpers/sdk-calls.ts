/**
 * Watches every call the process's one DynamoDB client (`ddb`, the client the
 * repositories use) sends, for the tests and the benchmark alike: what a request path
 * sends and reaches (dynamo-calls.ts), whether IAM would allow it (grant-check.ts), what
 * each benchmark request costs (bench/call-counter.ts, bench/meter.ts). Each watcher is
 * an SDK middleware on the client, added once per process under its name.
 */
import { ddb } from '../../functions/adapters/dynamo/client.js';

/** One DynamoDB call as the code sent it: the low-level command (e.g. `UpdateItemCommand`), before the document client marshalls its input. */
export interface SdkCall {
  command: string;
  input: Record<string, any>;
}

/**
 * Sees a call and sends it (with the input it gives, or the call's own) and returns
 * DynamoDB's output. Runs before the SDK's own steps, retries included.
 */
export type CallWatcher = (call: SdkCall, send: (input?: Record<string, unknown>) => Promise<Record<string, unknown>>) => Promise<unknown>;

const added = new Set<string>();

/** Adds `watcher` to every call from now on (once per name and process). */
export function watchDynamoCalls(name: string, watcher: CallWatcher, priority?: 'high'): void {
  if (added.has(name)) return;
  added.add(name);
  ddb.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, any>;
      let sent: Awaited<ReturnType<typeof next>> | undefined;
      await watcher({ command: String(context.commandName ?? ''), input }, async (asked = input) => {
        sent = await next({ ...args, input: asked });
        return sent.output as Record<string, unknown>;
      });
      // A watcher that does not send is a bug in it, not a call to drop.
      return sent ?? next(args);
    },
    { step: 'initialize', name, ...(priority ? { priority } : {}) },
  );
}
