/**
 * The workflow's check schedule (functions/core/check-schedule.ts, decisions 152, 323): the
 * longest execution the ASL allows, with a driver that always wants to be asked at once,
 * still writes fewer than the 25,000 history events a Standard execution may hold.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  CHECK_FLOOR_CAP_SECONDS,
  CHECK_FLOOR_FIRST_SECONDS,
  CHECK_FLOOR_FRACTION,
  nextCheck,
} from '../../functions/core/check-schedule.js';
import { PHASE_TIMEOUT_MAX_SECONDS } from '../../functions/lib/config.js';

const HISTORY_LIMIT = 25_000;
const asl = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../statemachines/operation.asl.json'), 'utf8'));
/** Events a state writes: entered and exited, and for a Task its scheduled, started and succeeded too. */
const eventsOf = (state: string) => (asl.States[state].Type === 'Task' ? 5 : 2);
/** One round of the check loop: the Wait, the CheckPhase task and the PhaseDone choice. */
const PER_CHECK = eventsOf('WaitForJob') + eventsOf('CheckPhase') + eventsOf('PhaseDone');
/** Entering a phase: the MorePhases choice, the StartPhase task and the NextPhase pass. */
const PER_PHASE = eventsOf('MorePhases') + eventsOf('StartPhase') + eventsOf('NextPhase');

describe('check schedule', () => {
  it('waits as long as the driver asks, but never less than the floor nor past the deadline', () => {
    expect(nextCheck(30, 1, 3_600_000)).toEqual({ seconds: 30, floor: 2 });
    expect(nextCheck(0, 64, 3_600_000)).toEqual({ seconds: 64, floor: 128 });
    expect(nextCheck(0, 64, 10_000)).toEqual({ seconds: 10, floor: 128 });
    expect(nextCheck(0, CHECK_FLOOR_CAP_SECONDS, 3_600_000)).toEqual({ seconds: CHECK_FLOOR_CAP_SECONDS, floor: CHECK_FLOOR_CAP_SECONDS });
  });

  it('starts from the first floor when the workflow carries none (an execution started before it did)', () => {
    expect(nextCheck(0, undefined, 3_600_000)).toEqual({ seconds: CHECK_FLOOR_FIRST_SECONDS, floor: 2 * CHECK_FLOOR_FIRST_SECONDS });
    expect(nextCheck(0, Number.NaN, 3_600_000).seconds).toBe(CHECK_FLOOR_FIRST_SECONDS);
  });

  it('with the time the phase has run, the floor is a sixth of it, from the first floor up to the cap (decision 323)', () => {
    expect(CHECK_FLOOR_FRACTION).toBe(1 / 6);
    // Early on the driver's wish wins; later a sixth of the phase's time does, whatever floor is carried.
    expect(nextCheck(10, 512, 3_600_000, 30_000)).toEqual({ seconds: 10, floor: 600 });
    expect(nextCheck(10, 2, 3_600_000, 300_000)).toEqual({ seconds: 50, floor: 4 });
    expect(nextCheck(0, 2, 3_600_000, 0).seconds).toBe(CHECK_FLOOR_FIRST_SECONDS);
    expect(nextCheck(0, 2, 3_600_000, 10 * 3_600_000).seconds).toBe(CHECK_FLOOR_CAP_SECONDS);
    expect(nextCheck(0, 2, 20_000, 600_000).seconds).toBe(20);
    // A job that ends just after a check is noticed at most a sixth of the phase's time late (or as late as the driver asked).
    for (const elapsed of [6_000, 60_000, 600_000, 3_600_000]) {
      const { seconds } = nextCheck(0, undefined, Number.POSITIVE_INFINITY, elapsed);
      expect(seconds).toBeLessThanOrEqual(Math.max(CHECK_FLOOR_FIRST_SECONDS, (elapsed / 1000) * CHECK_FLOOR_FRACTION));
    }
    // An unreadable phase start falls back to the carried floor.
    expect(nextCheck(0, 64, 3_600_000, Number.NaN)).toEqual({ seconds: 64, floor: 128 });
  });

  it(`keeps the longest execution allowed under ${HISTORY_LIMIT} history events with the floor a share of the phase's time`, () => {
    let events = 10;
    let left = asl.TimeoutSeconds as number;
    while (left > 0) {
      events += PER_PHASE;
      const limit = Math.min(PHASE_TIMEOUT_MAX_SECONDS, left) * 1000;
      let elapsed = 0;
      while (elapsed < limit) {
        const next = nextCheck(0, undefined, limit - elapsed, elapsed);
        elapsed += Math.max(next.seconds, 1) * 1000;
        events += PER_CHECK;
      }
      left -= PHASE_TIMEOUT_MAX_SECONDS;
    }
    expect(events).toBeLessThan(HISTORY_LIMIT / 2);
  });

  it(`keeps the longest execution allowed under ${HISTORY_LIMIT} history events`, () => {
    expect(PER_CHECK).toBe(9);
    // Phases at the longest limit, back to back, for as long as the execution may run; the driver always wants 0 s.
    let events = 10; // the execution's own start and end, the Start pass and the last state
    let left = asl.TimeoutSeconds as number;
    while (left > 0) {
      events += PER_PHASE;
      let phaseLeft = Math.min(PHASE_TIMEOUT_MAX_SECONDS, left) * 1000;
      let floor: number | undefined;
      while (phaseLeft > 0) {
        const next = nextCheck(0, floor, phaseLeft);
        floor = next.floor;
        phaseLeft -= Math.max(next.seconds, 1) * 1000;
        events += PER_CHECK;
      }
      left -= PHASE_TIMEOUT_MAX_SECONDS;
    }
    expect(events).toBeLessThan(HISTORY_LIMIT / 2);
  });
});
