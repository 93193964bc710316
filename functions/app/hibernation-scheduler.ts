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
import { gatherAs } from '../adapters/dynamo/group-commit.js';
import { type DueEntry, duePage, moveDue, saveHibernation } from '../adapters/dynamo/hibernation-store.js';
import { STEP_RETRIES } from '../adapters/dynamo/transact.js';
import { hibernationOf } from '../core/deployment-config.js';
import { type DeploymentRecord, hibernationStateOf } from '../core/deployments.js';
import { SYSTEM_ACTOR } from '../core/events.js';
import { HIBERNATION_OPERATION, minuteAtOrAfter } from '../core/hibernation.js';
import { nextTransition, transitionAt } from '../core/hibernation-times.js';
import { systemChanges } from './change-events.js';
import { ChangedSinceFound, requestHibernation } from './hibernation.js';
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

/**
 * One deployment due at the minute starting at `minuteMs`, from the record the index
 * handed over: every write is conditioned on that record, so a copy the index had not yet
 * brought up to date changes nothing and the visit is made again from a consistent read.
 */
export async function visitDue(entry: DueEntry, minuteMs: number, now: Date): Promise<VisitResult> {
  if (entry.record) {
    const result = await visitRecord(entry, entry.record, minuteMs, now);
    if (result !== 'moved') return result;
  }
  const read = await getDeployment(entry.orgId, entry.deploymentId, true);
  return read ? visitRecord(entry, read, minuteMs, now) : 'moved';
}

async function visitRecord(entry: DueEntry, read: DeploymentRecord, minuteMs: number, now: Date): Promise<VisitResult> {
  if (read.hibernation_due !== entry.due) return 'moved';
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
  const next = await nextVisit(d, minuteMs);
  let result: VisitResult = 'idle';
  if (kind && hibernationStateOf(d).until === null) {
    result = await transition(d, kind, next, now);
    // The operation's transaction wrote the next visit (a schedule with none left stays due,
    // and the next round, finding nothing to do, takes it off the list).
    if (result === 'started' || result === 'moved') return result;
  } else if (kind) result = 'skipped';
  return (await moveDue(d, entry.due, next)) ? result : 'moved';
}

/**
 * Starts the scheduled operation, gathered with the organization's other scheduled
 * transitions into one transaction (decision 327); a deployment already in that state,
 * not ready or busy skips this minute; one changed since it was found is 'moved'.
 */
async function transition(d: DeploymentRecord, kind: 'hibernate' | 'wake', next: string | null, now: Date): Promise<VisitResult> {
  try {
    const answer = await requestHibernation({
      orgId: d.org_id,
      deploymentId: d.id,
      kind,
      now,
      actor: SYSTEM_ACTOR,
      scheduled: { seen: d, next },
      gather: gatherAs(HIBERNATION_OPERATION[kind]),
      // Counted from the real clock (a round's `now` may be injected), as long as a workflow step's.
      retries: { ...STEP_RETRIES, since: new Date() },
    });
    return 'started' in answer ? 'started' : 'skipped';
  } catch (e) {
    if (e instanceof ChangedSinceFound) return 'moved';
    if (e instanceof ApiError && e.status === 409) return 'skipped';
    throw e;
  }
}

export interface ScheduleRound {
  minute: string;
  due: number;
  results: Partial<Record<VisitResult, number>>;
}

/**
 * Visits at a time: enough for each organization's due deployments to wait in its line
 * together and commit as one group, and for several organizations' groups to be in flight.
 */
const CONCURRENCY = 64;

/**
 * One round: the minute holding `now()`, every deployment due at or before it, page by
 * page, `concurrency` visits at a time. A visit that fails is logged; the deployment stays
 * due and the next round visits it (for the minute that round looks at).
 */
export async function runSchedule(opts: { now?: () => Date; concurrency?: number; pageSize?: number } = {}): Promise<ScheduleRound> {
  const { now = () => new Date(), concurrency = CONCURRENCY, pageSize = 1000 } = opts;
  const minuteMs = Math.floor(now().getTime() / MINUTE) * MINUTE;
  const round: ScheduleRound = { minute: new Date(minuteMs).toISOString(), due: 0, results: {} };
  const before = new Date(minuteMs + MINUTE).toISOString();
  const { visited, results } = await visitPages({
    // In the index's order, each organization's deployments together: their transitions wait in
    // its line at once and commit as one group (decision 327).
    page: (after) => duePage(before, pageSize, after),
    visit: (item) => visitDue(item, minuteMs, now()),
    concurrency,
    failure: 'scheduled hibernation failed',
  });
  round.due = visited;
  round.results = results;
  return round;
}
