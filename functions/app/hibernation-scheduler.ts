/**
 * The hibernation scheduler (decisions 50, 260): once a minute, the deployments due at or
 * before this minute (the sparse index hibernationDue, one Query, no Scan), each visited:
 * a hold whose `until` has come ends (a visible change, actor system); a schedule that
 * hibernates or wakes at this minute starts that operation (actor system) unless the
 * deployment is already in that state, not ready, busy, or held; then its next visit is
 * the next minute a schedule transitions or its hold ends. Only this minute is looked at:
 * a minute missed while nothing ran is not replayed.
 */

import { ApiError } from '../../contract/errors.js';
import { getDeployment } from '../adapters/dynamo/deployment-reads.js';
import { type DueEntry, duePage, moveDue, saveHibernation } from '../adapters/dynamo/hibernation-store.js';
import { STEP_RETRIES } from '../adapters/dynamo/transact.js';
import { hibernationOf } from '../core/deployment-config.js';
import { type DeploymentRecord, hibernationStateOf } from '../core/deployments.js';
import { SYSTEM_ACTOR } from '../core/events.js';
import { minuteAtOrAfter } from '../core/hibernation.js';
import { nextTransition, transitionAt } from '../core/hibernation-times.js';
import { systemChanges } from './change-events.js';
import { requestHibernation } from './hibernation.js';
import { visitPages } from './paged-visits.js';

const MINUTE = 60_000;

export type VisitResult = 'started' | 'skipped' | 'idle' | 'left' | 'moved';

/** The next minute to visit: the schedule's next transition after `minuteMs`, or the hold's end if earlier; null for neither. */
export async function nextVisit(d: DeploymentRecord, minuteMs: number): Promise<string | null> {
  const schedule = hibernationOf(d.config);
  const transition = schedule ? (await nextTransition(schedule, minuteMs))?.at : undefined;
  const until = hibernationStateOf(d).until;
  const holdEnd = until === null ? undefined : Date.parse(minuteAtOrAfter(Math.max(Date.parse(until), minuteMs + MINUTE)));
  const next = Math.min(transition ?? Number.POSITIVE_INFINITY, holdEnd ?? Number.POSITIVE_INFINITY);
  return Number.isFinite(next) ? new Date(next).toISOString() : null;
}

/** One deployment due at the minute starting at `minuteMs`. */
export async function visitDue(entry: DueEntry, minuteMs: number, now: Date): Promise<VisitResult> {
  const read = await getDeployment(entry.orgId, entry.deploymentId, true);
  if (!read || read.hibernation_due !== entry.due) return 'moved';
  if (read.status === 'destroying' || read.status === 'destroyed' || read.status === 'failed') {
    return (await moveDue(read, entry.due, null)) ? 'left' : 'moved';
  }
  let d = read;
  const { until } = hibernationStateOf(d);
  if (until !== null && Date.parse(until) <= minuteMs) {
    // The hold has ended: `until` goes back to null, a change the client sees (decision 50).
    const after = await saveHibernation(d, { hibernation: { ...hibernationStateOf(d), until: null } }, systemChanges, STEP_RETRIES, now);
    if (!after) return 'moved';
    d = after;
  }
  const schedule = hibernationOf(d.config);
  const kind = schedule ? await transitionAt(schedule, minuteMs) : null;
  let result: VisitResult = 'idle';
  if (kind && hibernationStateOf(d).until === null) result = await transition(d, kind, now);
  else if (kind) result = 'skipped';
  return (await moveDue(d, entry.due, await nextVisit(d, minuteMs))) || result === 'started' ? result : 'moved';
}

/** Starts the scheduled operation; a deployment already in that state, not ready or busy skips this minute. */
async function transition(d: DeploymentRecord, kind: 'hibernate' | 'wake', now: Date): Promise<VisitResult> {
  try {
    const answer = await requestHibernation({ orgId: d.org_id, deploymentId: d.id, kind, now, actor: SYSTEM_ACTOR, scheduled: true });
    return 'started' in answer ? 'started' : 'skipped';
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) return 'skipped';
    throw e;
  }
}

/**
 * A page of due keys reordered in turns of organizations: the index sorts a minute's keys by
 * organization, and this process writes one organization's changes at a time (its lock,
 * adapters/dynamo/org-lock.ts), so visits taken in index order would queue behind one
 * organization while the others wait (decision 310).
 */
export function acrossOrganizations<T extends { orgId: string }>(items: T[]): T[] {
  const byOrg = new Map<string, T[]>();
  for (const item of items) {
    const list = byOrg.get(item.orgId);
    if (list) list.push(item);
    else byOrg.set(item.orgId, [item]);
  }
  const lists = [...byOrg.values()];
  const out: T[] = [];
  for (let k = 0; out.length < items.length; k++) for (const list of lists) if (k < list.length) out.push(list[k] as T);
  return out;
}

export interface ScheduleRound {
  minute: string;
  due: number;
  results: Partial<Record<VisitResult, number>>;
}

/**
 * One round: the minute holding `now()`, every deployment due at or before it, page by
 * page, `concurrency` visits at a time. A visit that fails is logged; the deployment stays
 * due and the next round visits it (for the minute that round looks at).
 */
export async function runSchedule(opts: { now?: () => Date; concurrency?: number; pageSize?: number } = {}): Promise<ScheduleRound> {
  const { now = () => new Date(), concurrency = 16, pageSize = 1000 } = opts;
  const minuteMs = Math.floor(now().getTime() / MINUTE) * MINUTE;
  const round: ScheduleRound = { minute: new Date(minuteMs).toISOString(), due: 0, results: {} };
  const before = new Date(minuteMs + MINUTE).toISOString();
  const { visited, results } = await visitPages({
    page: async (after) => {
      const page = await duePage(before, pageSize, after);
      return { ...page, items: acrossOrganizations(page.items) };
    },
    visit: (item) => visitDue(item, minuteMs, now()),
    concurrency,
    failure: 'scheduled hibernation failed',
  });
  round.due = visited;
  round.results = results;
  return round;
}
