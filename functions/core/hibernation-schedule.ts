/**
 * Hibernation schedules (decision 50): which five-field cron expressions and time zones a
 * configuration may hold, and at which minutes they hibernate or wake a deployment.
 *
 * croner parses the expressions (hibernation-times.ts evaluates them); the grammar is
 * checked here first, because croner also takes seconds, years, names, `L`, `W` and `#`,
 * and the published grammar is numbers, `*`, ranges, lists and steps only.
 */
import type { FieldIssue } from '../../contract/errors.js';

export interface HibernationSchedule {
  hibernate: string;
  wake: string;
}

export interface HibernationConfig {
  schedules: HibernationSchedule[];
  time_zone: string;
}

export type Transition = 'hibernate' | 'wake';

export const MAX_SCHEDULES = 10;

/** minute, hour, day of month, month, day of week (0 = Sunday … 6). */
const FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 6 },
] as const;

/** One list item: `*`, `n` or `n-m`, optionally `/step`. */
const ITEM = /^(\*|(\d{1,2})(?:-(\d{1,2}))?)(?:\/(\d{1,2}))?$/;

/** Why a cron expression is not one the schedule takes, or null when it is. */
export async function cronProblem(expression: string): Promise<string | null> {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return 'must be a cron expression of five fields: minute hour day-of-month month day-of-week';
  for (const [i, field] of fields.entries()) {
    const { name, min, max } = FIELDS[i]!;
    for (const item of field.split(',')) {
      const m = ITEM.exec(item);
      if (!m) return `has an invalid ${name} field "${field}" (numbers, *, ranges, lists and steps only)`;
      const [, , from, to, step] = m;
      const out = [from, to].filter((n) => n !== undefined).find((n) => Number(n) < min || Number(n) > max);
      if (out !== undefined) return `has ${name} ${out}, outside ${min}-${max}`;
      if (from !== undefined && to !== undefined && Number(from) > Number(to))
        return `has a ${name} range ${from}-${to} that runs backwards`;
      if (step !== undefined && Number(step) === 0) return `has a ${name} step of 0`;
    }
  }
  try {
    // Loaded on first use, not at import: the writers that check a configuration bundle it
    // apart and load it only when a configuration brings schedules (decision 320).
    const { Cron: Parser } = await import('croner');
    new Parser(fields.join(' '), { paused: true });
  } catch (e) {
    return `is not a valid cron expression (${(e as Error).message})`;
  }
  return null;
}

/** Whether `name` is an IANA time zone this platform's Intl knows. */
export function isTimeZone(name: string): boolean {
  // Intl also takes offsets such as "+01:00", which are not IANA names.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The problems of a schedule configuration, each naming its field under `prefix`. */
export async function scheduleIssues(config: HibernationConfig, prefix = 'config.hibernation'): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  if (config.schedules.length < 1 || config.schedules.length > MAX_SCHEDULES) {
    issues.push({ field: `${prefix}.schedules`, issue: `must hold 1 to ${MAX_SCHEDULES} schedules` });
  }
  for (const [i, s] of config.schedules.entries()) {
    for (const kind of ['hibernate', 'wake'] as const) {
      const problem = await cronProblem(s[kind]);
      if (problem) issues.push({ field: `${prefix}.schedules.${i}.${kind}`, issue: problem });
    }
  }
  if (!isTimeZone(config.time_zone))
    issues.push({ field: `${prefix}.time_zone`, issue: 'must be an IANA time zone name such as Europe/Berlin' });
  return issues;
}
