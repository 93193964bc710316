/**
 * Hibernation (decision 50), the rules that need no cron parser: a manual hold's `until`,
 * what a hibernate's or a wake's success writes on the record, the minute the scheduler is
 * to look at a deployment again after a change, and the gaps hibernation cuts in the times
 * a deployment ran (its metrics). The schedules' own rules, which need croner, are
 * hibernation-schedule.ts: only the functions that check or run schedules bundle it.
 */
import type { FieldIssue } from '../../contract/errors.js';
import { MAX_HOLD_SECONDS } from '../../contract/limits.js';
import type { OperationType } from '../../contract/vocabulary.js';
import {
  type DeploymentRecord,
  type HibernatedSpan,
  type Hibernation,
  healthOf,
  hibernationStateOf,
  nextDueMinute,
} from './deployments.js';
import { type HealthDetail, hibernatedHealth } from './health.js';
import type { RunInterval } from './metrics-range.js';

export type HibernationKind = 'hibernate' | 'wake';

/** The operation each kind starts, and the state its success leaves. */
export const HIBERNATION_OPERATION: Record<HibernationKind, OperationType> = {
  hibernate: 'deployment.hibernate',
  wake: 'deployment.wake',
};
export const TARGET_STATE: Record<HibernationKind, Hibernation['state']> = { hibernate: 'hibernated', wake: 'awake' };

export const isHibernationType = (type: OperationType): boolean => type === 'deployment.hibernate' || type === 'deployment.wake';

/** Why a manual hold's end is refused: it must be in the future and at most 7 days ahead. */
export function holdIssues(until: string | undefined, nowMs: number): FieldIssue[] {
  if (until === undefined) return [];
  const at = Date.parse(until);
  if (Number.isNaN(at)) return [{ field: 'until', issue: 'must be a valid timestamp' }];
  if (at <= nowMs) return [{ field: 'until', issue: 'must be in the future' }];
  if (at > nowMs + MAX_HOLD_SECONDS * 1000) return [{ field: 'until', issue: 'must be at most 7 days ahead' }];
  return [];
}

/** The same instant as the API shows timestamps (milliseconds, Z). */
export const canonicalTime = (iso: string): string => new Date(Date.parse(iso)).toISOString();

const MINUTE = 60_000;

/** The start of the minute after the one holding `ms`: when the scheduler first looks at a change made at `ms`. */
export const nextMinute = nextDueMinute;

/** The start of the first minute at or after `ms`. */
export const minuteAtOrAfter = (ms: number): string => new Date(Math.ceil(ms / MINUTE) * MINUTE).toISOString();

/** How many hibernated spans a record keeps: decision 49's 15 days of metrics at a few transitions a day. */
export const MAX_HIBERNATED_SPANS = 64;

/** What a hibernate's success writes: the state, the health (no components; the checker leaves it), a span opened. */
export function hibernatedChange(
  d: DeploymentRecord,
  previous: HealthDetail,
  at: string,
): { set: Partial<DeploymentRecord>; healthItem: { detail: HealthDetail; watched: boolean } } {
  const detail = hibernatedHealth(previous, at);
  const spans = [...(d.hibernated_spans ?? []), { from: at, to: null }].slice(-MAX_HIBERNATED_SPANS);
  return {
    set: {
      hibernation: { state: 'hibernated', until: hibernationStateOf(d).until },
      health: { status: detail.status, since: detail.since },
      hibernated_spans: spans,
    },
    healthItem: { detail, watched: false },
  };
}

/** What a wake's success writes: the state, the first check's health (decision 48), the open span closed. */
export function awakeChange(
  d: DeploymentRecord,
  checked: HealthDetail,
  at: string,
): { set: Partial<DeploymentRecord>; healthItem: { detail: HealthDetail; watched: boolean } } {
  const spans = (d.hibernated_spans ?? []).map((s) => (s.to === null ? { ...s, to: at } : s));
  return {
    set: {
      hibernation: { state: 'awake', until: hibernationStateOf(d).until },
      health: { status: checked.status, since: checked.status === healthOf(d).status ? healthOf(d).since : checked.since },
      hibernated_spans: spans,
    },
    healthItem: { detail: checked, watched: true },
  };
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The times a deployment ran, with its hibernated spans cut out (decision 49: no points while hibernated). */
export function cutHibernated(runs: readonly RunInterval[], spans: readonly HibernatedSpan[]): RunInterval[] {
  let out = [...runs];
  for (const span of spans) {
    const from = seconds(span.from);
    const to = span.to === null ? null : seconds(span.to);
    out = out.flatMap((r) => {
      const pieces: RunInterval[] = [];
      // The part before the span, and the part after it.
      if (r.from < from) pieces.push({ from: r.from, to: r.to === null ? from : Math.min(r.to, from) });
      if (to !== null && (r.to === null || r.to > to)) pieces.push({ from: Math.max(r.from, to), to: r.to });
      return pieces.filter((p) => p.to === null || p.to > p.from);
    });
  }
  return out;
}
