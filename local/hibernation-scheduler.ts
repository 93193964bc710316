/**
 * The local stack's hibernation scheduler (decisions 50, 260): the AWS schedule's round
 * (functions/workflow/run-hibernation-schedule.ts), run in this process a second into every
 * minute; a minute the process was not running is not replayed.
 */
import { runSchedule } from '../functions/app/hibernation-scheduler.js';
import { type ScheduledRounds, startRounds } from './scheduled-rounds.js';

/** Milliseconds until a second past the next minute's start. */
const untilNextMinute = (nowMs: number) => 60_000 - (nowMs % 60_000) + 1_000;

export const startHibernationScheduler = (): ScheduledRounds =>
  startRounds({
    functionName: 'run-hibernation-schedule',
    round: () => runSchedule(),
    delayMs: untilNextMinute,
    failure: 'hibernation schedule round failed',
  });
