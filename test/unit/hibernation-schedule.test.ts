/**
 * Hibernation schedules (decision 50): the published cron grammar and nothing more, IANA
 * time zones, and the minutes at which a schedule acts, daylight-saving changes included.
 */
import { cronProblem, type HibernationConfig, isTimeZone, scheduleIssues } from '../../functions/core/hibernation-schedule.js';
import { nextTransition, transitionAt } from '../../functions/core/hibernation-times.js';

const berlinWeekdays: HibernationConfig = { schedules: [{ hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5' }], time_zone: 'Europe/Berlin' };
const at = (iso: string) => Date.parse(iso);

describe('the cron grammar', () => {
  it.each(['0 19 * * 1-5', '*/15 * * * *', '0,30 8-18/2 1-15 1,6-8 0', '5 4 * * 0', '59 23 31 12 6'])('takes %s', async (e) => {
    expect(await cronProblem(e)).toBeNull();
  });

  it.each([
    ['0 19 * *', 'five fields'],
    ['0 0 19 * * 1', 'five fields'],
    ['60 * * * *', 'minute 60'],
    ['0 24 * * *', 'hour 24'],
    ['0 0 0 * *', 'day of month 0'],
    ['0 0 * 13 *', 'month 13'],
    ['0 0 * * 7', 'day of week 7'],
    ['0 0 * * MON', 'invalid day of week'],
    ['0 0 L * *', 'invalid day of month'],
    ['0 0 * * 1#2', 'invalid day of week'],
    ['0 0 ? * *', 'invalid day of month'],
    ['*/0 * * * *', 'step of 0'],
    ['0 5-1 * * *', 'backwards'],
    ['@daily', 'five fields'],
    // The grammar's own check passes it; croner, loaded on first use, refuses it (decision 320).
    ['*/70 * * * *', 'not a valid cron expression'],
  ])('refuses %s (%s)', async (e, why) => {
    expect(await cronProblem(e)).toContain(why);
  });
});

describe('time zones', () => {
  it('takes IANA names and refuses offsets and made-up names', () => {
    for (const tz of ['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) expect(isTimeZone(tz)).toBe(true);
    for (const tz of ['+01:00', 'Mars/Olympus', '', 'Europe/', 'utc offset']) expect(isTimeZone(tz)).toBe(false);
  });

  it('names each bad field', async () => {
    const issues = await scheduleIssues({ schedules: [{ hibernate: '0 19 * * 1-5', wake: 'nope' }], time_zone: 'Nowhere/Land' });
    expect(issues.map((i) => i.field)).toEqual(['config.hibernation.schedules.0.wake', 'config.hibernation.time_zone']);
    expect((await scheduleIssues({ schedules: [], time_zone: 'UTC' })).map((i) => i.field)).toEqual(['config.hibernation.schedules']);
  });
});

describe('when a schedule acts', () => {
  it('hibernates at 19:00 and wakes at 07:00 Berlin time on weekdays, across the change to summer time', async () => {
    expect(await transitionAt(berlinWeekdays, at('2026-11-27T18:00:30Z'))).toBe('hibernate'); // Friday 19:00 CET
    expect(await transitionAt(berlinWeekdays, at('2026-11-27T19:00:00Z'))).toBeNull();
    expect(await transitionAt(berlinWeekdays, at('2026-11-28T18:00:00Z'))).toBeNull(); // Saturday
    expect(await nextTransition(berlinWeekdays, at('2026-11-27T18:00:00Z'))).toEqual({ at: at('2026-11-30T06:00:00Z'), kind: 'wake' });
    // Monday 30 March 2026 is in summer time (CEST, UTC+2).
    expect(await nextTransition(berlinWeekdays, at('2026-03-27T18:30:00Z'))).toEqual({ at: at('2026-03-30T05:00:00Z'), kind: 'wake' });
  });

  it('does nothing at a minute where both kinds match, and looks past it', async () => {
    const clash: HibernationConfig = { schedules: [{ hibernate: '0 * * * *', wake: '0 12 * * *' }], time_zone: 'UTC' };
    expect(await transitionAt(clash, at('2026-11-28T12:00:00Z'))).toBeNull();
    expect(await nextTransition(clash, at('2026-11-28T11:00:00Z'))).toEqual({ at: at('2026-11-28T13:00:00Z'), kind: 'hibernate' });
    const always: HibernationConfig = { schedules: [{ hibernate: '0 12 * * *', wake: '0 12 * * *' }], time_zone: 'UTC' };
    expect(await nextTransition(always, at('2026-11-28T11:00:00Z'), 3 * 24 * 60)).toBeNull();
  });

  it('counts the minute asked from as past', async () => {
    expect(await nextTransition(berlinWeekdays, at('2026-11-30T06:00:00Z'))).toEqual({ at: at('2026-11-30T18:00:00Z'), kind: 'hibernate' });
  });
});
