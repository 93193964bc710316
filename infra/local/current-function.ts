/**
 * Which function the local host is running code for. On AWS each function is its own
 * process with its own role; the local host runs them all in one, so what a function's
 * code sends (to DynamoDB, say) is told apart by the async context it runs in. The
 * tests replay those requests against each function's grants (test/helpers/grant-check.ts).
 * Each run is also one invocation to the logger, so concurrent invocations' log lines
 * keep their own request ids, routes and organizations, as separate processes would.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { runInvocation } from '../../functions/lib/logger.js';

const running = new AsyncLocalStorage<string>();

/** Runs `work` as the named function: everything it awaits or starts belongs to it. */
export const runAsFunction = <T>(name: string, work: () => Promise<T>): Promise<T> => running.run(name, () => runInvocation(work));

/**
 * Runs `work` as the local host, outside any function, though a function called it: what
 * a stand-in for an AWS service does on the function's behalf is that service's work.
 */
export const runAsHost = <T>(work: () => Promise<T>): Promise<T> => running.exit(work);

/** The function whose code is running, or undefined outside any (the host's own work, a test's setup). */
export const currentFunction = (): string | undefined => running.getStore();
