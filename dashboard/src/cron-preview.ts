/**
 * The next times a cron expression matches in a time zone, for the schedule editor's
 * preview. croner (about 12 KB) is the service's own evaluator (functions/core/hibernation-schedule.ts);
 * this module is loaded only when the editor shows a schedule (decision 307).
 */
import { Cron } from 'croner';

/** The next `count` matches after now, or null for an expression croner refuses. */
export function nextRuns(expression: string, timeZone: string, count: number): Date[] | null {
  try {
    return new Cron(expression.trim(), { timezone: timeZone, paused: true }).nextRuns(count);
  } catch {
    return null;
  }
}
