/**
 * When the workflow asks about a running job again (decisions 152, 323). The driver says
 * when it wants to be asked; the workflow never asks sooner than a floor, and never later
 * than the phase's deadline. The floor is a sixth of the time the phase has run (decision
 * 323): a job is noticed at most a sixth of its phase's time late, and a phase's checks
 * grow geometrically, up to a cap. A Standard execution's history holds at most 25,000
 * events and each check writes 9 of them, so the cap is what bounds the history of the
 * longest execution allowed. When the phase's start is not known, the floor is the one the
 * workflow carries, which starts at 1 s and doubles with every check (decision 152).
 */

/** The floor of a phase's first check. */
export const CHECK_FLOOR_FIRST_SECONDS = 1;
/** The longest the floor grows: a job that ran long is noticed at most this late. */
export const CHECK_FLOOR_CAP_SECONDS = 600;
/** The floor, as a share of the time the phase has run. */
export const CHECK_FLOOR_FRACTION = 1 / 6;

export interface NextCheck {
  /** How long the workflow waits before the next check. */
  readonly seconds: number;
  /** The floor the next check starts from. */
  readonly floor: number;
}

const clampFloor = (seconds: number) => Math.min(Math.max(seconds, CHECK_FLOOR_FIRST_SECONDS), CHECK_FLOOR_CAP_SECONDS);

/**
 * The next wait: what the driver wants, at least the floor, at most what is left of the
 * phase. `elapsedMs`, how long the phase has run, makes the floor a share of it; without
 * it the carried `floorSeconds` is the floor.
 */
export function nextCheck(wantedSeconds: number, floorSeconds: number | undefined, leftMs: number, elapsedMs?: number): NextCheck {
  const carried =
    typeof floorSeconds === 'number' && Number.isFinite(floorSeconds) && floorSeconds >= CHECK_FLOOR_FIRST_SECONDS
      ? Math.min(floorSeconds, CHECK_FLOOR_CAP_SECONDS)
      : CHECK_FLOOR_FIRST_SECONDS;
  const floor =
    typeof elapsedMs === 'number' && Number.isFinite(elapsedMs) && elapsedMs >= 0
      ? clampFloor(Math.floor((elapsedMs / 1000) * CHECK_FLOOR_FRACTION))
      : carried;
  const seconds = Math.max(0, Math.min(Math.max(Math.ceil(wantedSeconds), floor), Math.ceil(leftMs / 1000)));
  return { seconds, floor: Math.min(carried * 2, CHECK_FLOOR_CAP_SECONDS) };
}
