/**
 * When the workflow asks about a running job again (decision 152). The driver says when
 * it wants to be asked; the workflow never asks sooner than a floor that doubles with
 * every check of the phase up to a cap, and never later than the phase's deadline. A
 * Standard execution's history holds at most 25,000 events and each check writes 9 of
 * them, so the cap is what bounds the history of the longest execution allowed.
 */

/** The floor of a phase's first check. */
export const CHECK_FLOOR_FIRST_SECONDS = 1;
/** The longest the floor grows: a job that ran long is noticed at most this late. */
export const CHECK_FLOOR_CAP_SECONDS = 600;

export interface NextCheck {
  /** How long the workflow waits before the next check. */
  readonly seconds: number;
  /** The floor the next check starts from. */
  readonly floor: number;
}

export function nextCheck(wantedSeconds: number, floorSeconds: number | undefined, leftMs: number): NextCheck {
  const floor =
    typeof floorSeconds === 'number' && Number.isFinite(floorSeconds) && floorSeconds >= CHECK_FLOOR_FIRST_SECONDS
      ? Math.min(floorSeconds, CHECK_FLOOR_CAP_SECONDS)
      : CHECK_FLOOR_FIRST_SECONDS;
  const seconds = Math.max(0, Math.min(Math.max(Math.ceil(wantedSeconds), floor), Math.ceil(leftMs / 1000)));
  return { seconds, floor: Math.min(floor * 2, CHECK_FLOOR_CAP_SECONDS) };
}
