/**
 * The activity page's and the deployment page's summary of an event (dashboard/src/event-summary.ts):
 * a health change (decision 48) and a hibernation change (decision 50) said as the moves they were.
 */
import { describeChange } from '../../dashboard/src/event-summary.js';

describe('describeChange', () => {
  it('says a health change in words, from the previous status to the new one', () => {
    const object = { status: 'ready', health: { status: 'degraded', since: '2026-11-28T04:00:00.000Z' }, updated_at: 'b' };
    const previous = { health: { status: 'healthy', since: '2026-11-27T04:00:00.000Z' }, updated_at: 'a' };
    expect(describeChange(object, previous)).toBe('health: healthy → degraded');
  });

  it('says it beside the other changes of the same event, and never as "health changed"', () => {
    const object = { status: 'ready', url: 'https://x', health: { status: 'healthy', since: 'b' } };
    const previous = { status: 'provisioning', url: null, health: { status: 'unknown', since: 'a' } };
    expect(describeChange(object, previous)).toBe('provisioning → ready; health: unknown → healthy; url set');
  });

  it('says a hibernation change as its move, a hold set or ended, and a schedule change by its count and zone', () => {
    const at = (state: string, until: string | null) => ({ status: 'ready', hibernation: { state, until } });
    expect(
      describeChange(
        { ...at('hibernated', null), health: { status: 'hibernated' } },
        {
          hibernation: { state: 'awake', until: null },
          health: { status: 'healthy' },
        },
      ),
    ).toBe('health: healthy → hibernated; hibernation: awake → hibernated');
    expect(describeChange(at('awake', '2026-11-28T09:00:00.000Z'), { hibernation: { state: 'awake', until: null } })).toBe(
      'hibernation hold until 2026-11-28T09:00:00.000Z',
    );
    expect(describeChange(at('hibernated', null), { hibernation: { state: 'hibernated', until: '2026-11-28T09:00:00.000Z' } })).toBe(
      'hibernation hold ended',
    );
    const schedule = { schedules: [{ hibernate: '0 19 * * 1-5', wake: '0 7 * * 1-5' }], time_zone: 'Europe/Berlin' };
    expect(describeChange({ config: { size: 'small', hibernation: schedule } }, { config: { size: 'small', hibernation: null } })).toBe(
      'hibernation schedule none → 1 schedule (Europe/Berlin)',
    );
    expect(
      describeChange(
        { config: { hibernation: null } },
        { config: { hibernation: { ...schedule, schedules: [schedule.schedules[0], schedule.schedules[0]] } } },
      ),
    ).toBe('hibernation schedule 2 schedules (Europe/Berlin) → none');
  });
});
