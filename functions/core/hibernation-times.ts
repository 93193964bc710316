/**
 * At which minutes hibernation schedules (decision 50) hibernate or wake a deployment: croner
 * evaluates the expressions, time zones and daylight-saving changes included. Apart from the
 * grammar (hibernation-schedule.ts). croner is loaded on first use, not at import: the
 * scheduler's round needs it only in a minute with deployments due, and a quiet minute (one
 * Query) starts without it (decision 320).
 */
import type { Cron } from 'croner';
import type { HibernationConfig, Transition } from './hibernation-schedule.js';

const MINUTE = 60_000;
const startOfMinute = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;

async function crons(config: HibernationConfig, kind: Transition): Promise<Cron[]> {
  const { Cron: Parser } = await import('croner');
  return config.schedules.map((s) => new Parser(s[kind].trim(), { timezone: config.time_zone, paused: true }));
}

/** What the schedule does at the minute holding `atMs`: null when no expression matches, or both kinds do. */
export async function transitionAt(config: HibernationConfig, atMs: number): Promise<Transition | null> {
  const minute = new Date(startOfMinute(atMs));
  const hibernate = (await crons(config, 'hibernate')).some((c) => c.match(minute));
  const wake = (await crons(config, 'wake')).some((c) => c.match(minute));
  return hibernate === wake ? null : hibernate ? 'hibernate' : 'wake';
}

/**
 * The first minute after the one holding `afterMs` at which the schedule hibernates or wakes
 * (a minute where both kinds match does nothing and is passed over), or null when there is
 * none within `horizonMinutes` (a schedule whose only matches are such minutes).
 */
export async function nextTransition(
  config: HibernationConfig,
  afterMs: number,
  horizonMinutes = 366 * 24 * 60,
): Promise<{ at: number; kind: Transition } | null> {
  const all = [...(await crons(config, 'hibernate')), ...(await crons(config, 'wake'))];
  const limit = startOfMinute(afterMs) + horizonMinutes * MINUTE;
  let from = startOfMinute(afterMs);
  while (from < limit) {
    const next = all
      .map((c) => c.nextRun(new Date(from))?.getTime())
      .filter((t): t is number => t !== undefined)
      .reduce((a, b) => Math.min(a, b), Number.POSITIVE_INFINITY);
    if (!Number.isFinite(next) || next >= limit) return null;
    const kind = await transitionAt(config, next);
    if (kind) return { at: next, kind };
    from = next;
  }
  return null;
}
