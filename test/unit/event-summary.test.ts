/**
 * The activity page's and the deployment page's summary of an event (dashboard/src/event-summary.ts):
 * a health change (decision 48) said as the move it was.
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
});
