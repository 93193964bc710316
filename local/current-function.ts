/**
 * Which function the local host is running code for, and which invocation. On AWS each
 * function is its own process with its own role; the local host runs them all in one, so
 * what a function's code sends (to DynamoDB, say) is told apart by the async context it
 * runs in. The tests replay those requests against each function's grants
 * (test/helpers/grant-check.ts).
 *
 * Each run is also one Lambda invocation, run the way Lambda's managed instances run
 * several at once in one process: `AWS_LAMBDA_MAX_CONCURRENCY` is set, and each
 * invocation has its own context in the process's InvokeStore (`@aws/lambda-invoke-store`),
 * with its request id and X-Ray trace header. Powertools keeps an invocation's log keys,
 * Lambda context, log level, log buffer and stored metrics in that context, so concurrent
 * invocations never see each other's, as separate processes would not (decision 181).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';

type InvocationContext = Record<string | symbol, unknown>;

/**
 * An InvokeStore that keeps each invocation's context in an AsyncLocalStorage: what the
 * package makes for a process with AWS_LAMBDA_MAX_CONCURRENCY (its InvokeStoreMulti), made
 * here synchronously, so it is in place before the first log line or SDK call asks for it.
 */
class ConcurrentInvokeStore extends InvokeStoreBase {
  readonly concurrent = true;
  readonly #contexts = new AsyncLocalStorage<InvocationContext>();

  getContext(): InvocationContext | undefined {
    return this.#contexts.getStore();
  }

  hasContext(): boolean {
    return this.#contexts.getStore() !== undefined;
  }

  get<T = unknown>(key: string | symbol): T | undefined {
    return this.#contexts.getStore()?.[key] as T | undefined;
  }

  set<T = unknown>(key: string | symbol, value: T): void {
    if (this.isProtectedKey(key)) throw new Error(`Cannot modify protected Lambda context field: ${String(key)}`);
    const context = this.#contexts.getStore();
    if (!context) throw new Error('No context available');
    context[key] = value;
  }

  run<T>(context: InvocationContext, fn: () => T): T {
    return this.#contexts.run(context, fn);
  }
}

/**
 * The process's store, registered where Lambda's runtime registers its own and where the
 * package and Powertools look for it (`globalThis.awslambda.InvokeStore`). A store someone
 * made before (the SDK asks for one on its first call) is replaced: outside Lambda it holds
 * nothing, and a single-context store would share one context among all invocations.
 */
function concurrentStore(): ConcurrentInvokeStore {
  const global = globalThis as { awslambda?: { InvokeStore?: InvokeStoreBase } };
  global.awslambda ??= {};
  const lambda = global.awslambda;
  const current = lambda.InvokeStore as Partial<ConcurrentInvokeStore> | undefined;
  if (!current?.concurrent) lambda.InvokeStore = new ConcurrentInvokeStore();
  // The package keeps the store it hands out (the SDK asks it on every call): asked now,
  // before the variable below is set, it hands out this one rather than build its own.
  const concurrency = process.env.AWS_LAMBDA_MAX_CONCURRENCY;
  delete process.env.AWS_LAMBDA_MAX_CONCURRENCY;
  void InvokeStore.getInstanceAsync();
  // As on a managed instance; the number is only read as "set" (Powertools, the SDK).
  process.env.AWS_LAMBDA_MAX_CONCURRENCY = concurrency ?? '64';
  // As Lambda sets it for a function that starts on demand: the first invocation is a cold start.
  process.env.AWS_LAMBDA_INITIALIZATION_TYPE ??= 'on-demand';
  return lambda.InvokeStore as ConcurrentInvokeStore;
}

const store = concurrentStore();
const { REQUEST_ID, X_RAY_TRACE_ID } = InvokeStoreBase.PROTECTED_KEYS;

/** An X-Ray trace header as Lambda gives each invocation (`Root=1-<epoch hex>-<24 hex>;Parent=…;Sampled=0`). */
function traceHeader(): string {
  const epoch = Math.floor(Date.now() / 1000).toString(16);
  return `Root=1-${epoch}-${randomBytes(12).toString('hex')};Parent=${randomBytes(8).toString('hex')};Sampled=0`;
}

const running = new AsyncLocalStorage<string>();

/**
 * Runs `work` as one invocation of the named function: everything it awaits or starts
 * belongs to it. `awsRequestId` is the Lambda context's, when the caller made one.
 */
export const runAsFunction = <T>(name: string, work: () => Promise<T>, awsRequestId: string = randomUUID()): Promise<T> =>
  running.run(name, () => store.run({ [REQUEST_ID]: awsRequestId, [X_RAY_TRACE_ID]: traceHeader() }, work));

/**
 * Runs `work` as the local host, outside any function, though a function called it: what
 * a stand-in for an AWS service does on the function's behalf is that service's work.
 */
export const runAsHost = <T>(work: () => Promise<T>): Promise<T> => running.exit(work);

/** The function whose code is running, or undefined outside any (the host's own work, a test's setup). */
export const currentFunction = (): string | undefined => running.getStore();
