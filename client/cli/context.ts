/** What a deployctl run is given (streams, environment, fetch, time), its exit codes, and the two ways it writes. */
import { printable } from '../../cli-kit/text.js';
import type { Clock } from '../wait.js';

/**
 * 0 success; 1 the operation failed, was canceled or outlived --timeout; 2 usage error;
 * 3 API or network error; 130 interrupted (Ctrl-C) while waiting: the operation goes on.
 */
/** docs/client.md lists them: failed (or --timeout ran out), canceled and interrupted each have their own. */
export const EXIT = { ok: 0, operationFailed: 1, usage: 2, apiError: 3, operationCanceled: 4, interrupted: 130 } as const;

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
  /** The jitter of a wait's retries (a number in [0, 1)); Math.random by default. */
  random?: () => number;
  /** Aborts a wait (Ctrl-C): the command stops waiting and exits 130, the operation goes on. */
  signal?: AbortSignal;
}

const line = (text: string) => printable(text.endsWith('\n') ? text : `${text}\n`);

/** The command's result, on stdout. */
export const out = (ctx: CliContext, text: string) => ctx.stdout.write(line(text));
/** Progress, notes and errors, on stderr. */
export const err = (ctx: CliContext, text: string) => ctx.stderr.write(line(text));
