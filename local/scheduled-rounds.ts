/**
 * A scheduled function's rounds, run in this process as the AWS schedule runs them: each
 * round as the function it is on AWS (its grants checked, its logs its own), the next one
 * only when the one before has ended, so rounds never overlap. A round that fails is
 * logged; the next one runs as planned.
 */
import { logger } from '../functions/lib/logger.js';
import { runAsFunction } from './current-function.js';

export interface ScheduledRounds {
  stop(): Promise<void>;
}

export function startRounds(opts: {
  /** The function the AWS schedule invokes. */
  functionName: string;
  round: () => Promise<unknown>;
  /** Milliseconds from now (given) to the next round's start. */
  delayMs: (nowMs: number) => number;
  /** What a failed round's log line says. */
  failure: string;
}): ScheduledRounds {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const round = () => {
    running = runAsFunction(opts.functionName, opts.round)
      .catch((e: unknown) => logger.error(opts.failure, { error: e as Error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(round, opts.delayMs(Date.now()));
      });
  };
  timer = setTimeout(round, opts.delayMs(Date.now()));
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
