/**
 * The local stack's hibernation scheduler (decisions 50, 260): the AWS schedule's round
 * (functions/workflow/run-hibernation-schedule.ts), run in this process a second into every
 * minute. A round starts only when the one before has ended, so rounds never overlap; a
 * minute the process was not running is not replayed.
 */
import { runSchedule } from '../functions/app/hibernation-scheduler.js';
import { logger } from '../functions/lib/logger.js';
import { runAsFunction } from './current-function.js';

export interface HibernationScheduler {
  stop(): Promise<void>;
}

/** Milliseconds until a second past the next minute's start. */
const untilNextMinute = (nowMs: number) => 60_000 - (nowMs % 60_000) + 1_000;

export function startHibernationScheduler(): HibernationScheduler {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const round = () => {
    running = runAsFunction('run-hibernation-schedule', () => runSchedule())
      .catch((e: unknown) => logger.error('hibernation schedule round failed', { error: e as Error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(round, untilNextMinute(Date.now()));
      });
  };
  timer = setTimeout(round, untilNextMinute(Date.now()));
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
