/**
 * Fault injection for the process's AWS clients (the only mocking the tests do): an SDK
 * middleware placed inside the SDK's retry loop, just before the request would go on the
 * wire, answers chosen calls the way a throttled or failing DynamoDB does (an HTTP answer
 * with the service's error type, which the SDK's own deserializer turns into its typed
 * exception) or the way a dropped connection does (a socket error with code ECONNRESET).
 * The SDK's retry strategy then sees exactly what it would see from AWS.
 */

import { Readable } from 'node:stream';
import { prng } from '../../bench/seed.js';

export type FaultKind =
  | 'ProvisionedThroughputExceededException'
  | 'ThrottlingException'
  | 'InternalServerError'
  | 'ECONNRESET'
  /** DynamoDB Local's own 500 for a transaction that waited too long on a lock (not among ALL_FAULTS: AWS never sends it). */
  | 'LocalLockTimeout';

/** The message DynamoDB Local sends with it, word for word. */
export const LOCAL_LOCK_TIMEOUT =
  'This action timed out because it too long waiting for a lock. This request will succeed in actual DynamoDB API';

export const ALL_FAULTS: readonly FaultKind[] = [
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'InternalServerError',
  'ECONNRESET',
];

export interface FaultPlan {
  /** Which commands may be hit (e.g. GetItemCommand); all of them when absent. */
  commands?: readonly string[];
  /** The share of calls hit, drawn from a generator seeded with `seed`, so a run can be repeated. */
  share: number;
  seed: number;
  /** How many attempts of a hit call fail: the SDK makes 4 attempts of a DynamoDB call, so up to 3 are absorbed by its retries. */
  attempts: number;
  /** Every `surfaceEvery`-th hit call fails all of its attempts instead, so the fault reaches the code that sent it. */
  surfaceEvery?: number;
  /** The kinds of fault, used in turn. */
  kinds?: readonly FaultKind[];
  /** At most this many calls are hit; the rest go on (all may be hit when absent). */
  maxHits?: number;
}

export interface Injection {
  /** Failed attempts, by kind and command. */
  readonly faults: { kind: FaultKind; command: string }[];
  /** Calls whose every attempt failed (the fault reached the caller). */
  readonly surfaced: number;
  /** Stops injecting (the middleware stays, idle). */
  off(): void;
}

interface ClientWithStack {
  middlewareStack: { add(mw: unknown, options: Record<string, unknown>): void };
}

/** The answer DynamoDB (JSON 1.0 protocol) gives for `kind`, as the HTTP handler would return it. */
function serviceAnswer(kind: Exclude<FaultKind, 'ECONNRESET'>) {
  const local = kind === 'LocalLockTimeout';
  const type = local ? 'InternalServerError' : kind;
  const status = type === 'InternalServerError' ? 500 : 400;
  const body = JSON.stringify({
    __type: `com.amazonaws.dynamodb.v20120810#${type}`,
    message: local ? LOCAL_LOCK_TIMEOUT : `injected ${kind}`,
  });
  return {
    response: {
      statusCode: status,
      reason: status === 500 ? 'Internal Server Error' : 'Bad Request',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'injected' },
      body: Readable.from([Buffer.from(body)]),
    },
    output: undefined,
  };
}

/** What a call's attempt should do: go on, or fail with this kind. */
type Decide = (context: object, command: string) => FaultKind | undefined;

/** One middleware per client, installed once; the active plan's `decide` is swapped in and out. */
const active = new WeakMap<object, { decide: Decide | undefined }>();

function slotOf(client: ClientWithStack): { decide: Decide | undefined } {
  let slot = active.get(client);
  if (slot) return slot;
  const s: { decide: Decide | undefined } = { decide: undefined };
  client.middlewareStack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const kind = s.decide?.(context, String(context.commandName));
      if (!kind) return next(args);
      if (kind === 'ECONNRESET') throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', errno: -104, syscall: 'read' });
      return serviceAnswer(kind);
    },
    // Inside the retry loop and the deserializer: where the HTTP handler would answer.
    { step: 'deserialize', priority: 'low', name: 'injectFaults' },
  );
  slot = s;
  active.set(client, slot);
  return slot;
}

/** Injects faults per `plan` into every call `client` sends from now on, until `off()`; one plan at a time. */
export function injectFaults(client: ClientWithStack, plan: FaultPlan): Injection {
  const slot = slotOf(client);
  if (slot.decide) throw new Error('a fault plan is already active on this client');
  const random = prng(plan.seed);
  const kinds = plan.kinds ?? ALL_FAULTS;
  const faults: { kind: FaultKind; command: string }[] = [];
  let hits = 0;
  let surfaced = 0;
  /** Attempts still to fail, per call: the SDK keeps one context object across a call's attempts. */
  const calls = new WeakMap<object, { left: number; kind: FaultKind }>();
  slot.decide = (context, command) => {
    if (plan.commands && !plan.commands.includes(command)) return undefined;
    let call = calls.get(context);
    if (!call) {
      call = { left: 0, kind: kinds[0]! };
      calls.set(context, call);
      if (random() < plan.share && hits < (plan.maxHits ?? Number.POSITIVE_INFINITY)) {
        hits++;
        const all = plan.surfaceEvery !== undefined && hits % plan.surfaceEvery === 0;
        if (all) surfaced++;
        call.left = all ? Number.POSITIVE_INFINITY : plan.attempts;
        call.kind = kinds[hits % kinds.length]!;
      }
    }
    if (call.left === 0) return undefined;
    call.left--;
    faults.push({ kind: call.kind, command });
    return call.kind;
  };
  return {
    faults,
    get surfaced() {
      return surfaced;
    },
    off() {
      slot.decide = undefined;
    },
  };
}
