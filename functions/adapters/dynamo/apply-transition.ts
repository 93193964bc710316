/**
 * Moving an operation (and its deployment): one transaction of the operation, the
 * deployment's move, their status counts, a destroyed deployment's name freed, and, when a
 * client can see the change, the organization's lock and the events.
 */

import type { DeploymentStatus } from '../../../contract/schemas.js';
import { deployment, deploymentKey, nameKey } from '../../../contract/table/entities.js';
import { type DeploymentRecord, inFlightEntry, nextDueMinute } from '../../core/deployments.js';
import type { HealthDetail } from '../../core/health.js';
import type { NewLogLine } from '../../core/operation-logs.js';
import { isTerminal, type OperationRecord } from '../../core/operations.js';
import type { RevisionRecord } from '../../core/revisions.js';
import { tableName } from './client.js';
import { type ChangeEvents, eventWrites } from './event-log.js';
import { healthItem } from './health-store.js';
import { dueIndexKeys } from './hibernation-store.js';
import { deploymentCountedIn, operationCountedIn, revisionItem } from './items.js';
import { type OperationChange, operationWrites } from './operation-update.js';
import { type Item, orgAfter, orgUpdate, putNew, remember, snapshotOf, withWriteState } from './org-lock.js';
import { StatusCountChanges } from './status-counts.js';
import {
  Retry,
  type RetryPolicy,
  setClause,
  type TransactItem,
  TransactionRefused,
  transact,
  updateParts,
  withCondition,
} from './transact.js';

export type { OperationChange };

export interface Transition {
  operation: OperationRecord;
  change: OperationChange;
  /** Lines of the operation's log beyond those the change itself writes (the platform's, decision 45). */
  lines?: readonly NewLogLine[];
  /** The deployment's move, if any: it holds only if the deployment is still in `from`. */
  deployment?: { record: DeploymentRecord; to: DeploymentStatus };
  /**
   * Decision 48: the first health check of a deployment this transition makes ready, stored
   * with the move (the record's `health`, and its health item, which the checker then visits).
   */
  health?: HealthDetail;
  /** A configuration update's success: the deployment takes it as its next revision (decision 42). */
  applied?: { record: DeploymentRecord; revision: RevisionRecord };
  /**
   * A hibernate's or a wake's success (decision 50): what the ready deployment's record takes
   * (`hibernation`, `health`, its hibernated spans), and its health item (a hibernated one
   * leaves the checker's list; a woken one joins it with its first check).
   */
  hibernation?: { record: DeploymentRecord; set: Partial<DeploymentRecord>; healthItem: { detail: HealthDetail; watched: boolean } };
  at: string;
  /** How long to keep retrying the organization's lock. */
  retries: RetryPolicy;
  events: ChangeEvents;
}

/**
 * The deployment item's part of a transition: its status move, a configuration applied
 * (only onto the revision it follows), and, when the operation ends, its leaving
 * `in_flight`. Returns the item's update and the record before and after.
 */
function deploymentWrite(t: Transition, ending: boolean): { item?: TransactItem; change?: [DeploymentRecord, DeploymentRecord] } {
  const op = t.operation;
  let set: Item = {};
  let condition = 'attribute_exists(pk)';
  let names: Record<string, string> = {};
  let values: Record<string, unknown> = {};
  let change: [DeploymentRecord, DeploymentRecord] | undefined;
  if (t.deployment) {
    const { record: d, to } = t.deployment;
    // When it ran (decision 49's metrics), and its health while ready (decision 48).
    const lifecycle = lifecycleFields(to, t);
    set = { status: to, ...deployment.statusIndexKeys({ ...d }, to), updated_at: t.at, ...lifecycle };
    condition = '#st = :from';
    names = { '#st': 'status' };
    values = { ':from': d.status };
    change = [d, { ...d, status: to, updated_at: t.at, ...lifecycle }];
  }
  if (t.applied) {
    const { record: d, revision: r } = t.applied;
    set = { config: r.config, revision: r.revision, applied_at: r.created_at, updated_at: t.at };
    // New schedules: the scheduler looks at the deployment from the next minute (decision 260).
    if (JSON.stringify(r.config.hibernation ?? null) !== JSON.stringify(d.config.hibernation ?? null) && r.config.hibernation) {
      const due = { hibernation_due: nextDueMinute(Date.parse(t.at)) };
      Object.assign(set, due, dueIndexKeys(d, due));
    }
    condition = '(attribute_not_exists(#rev) AND :prev = :one) OR #rev = :prev';
    names = { '#rev': 'revision' };
    values = { ':prev': r.revision - 1, ':one': 1 };
    change = [d, { ...d, config: r.config, revision: r.revision, applied_at: r.created_at, updated_at: t.at }];
  }
  if (t.hibernation) {
    const { record: d, set: fields } = t.hibernation;
    set = { ...fields, updated_at: t.at };
    condition = '#st = :ready';
    names = { '#st': 'status' };
    values = { ':ready': 'ready' };
    change = [d, { ...d, ...fields, updated_at: t.at }];
  }
  if (!change && !ending) return {};
  const entry = inFlightEntry(op);
  if (change && ending) change[1] = { ...change[1], in_flight: change[1].in_flight.filter((e) => e !== entry) };
  const parts = ending ? setClause(updateParts(set), 'DELETE', 'in_flight', entry) : updateParts(set);
  const item = {
    Update: { TableName: tableName(), Key: deploymentKey(op.org_id, op.resource_id), ...withCondition(parts, condition, names, values) },
  };
  return { item, change };
}

/** What a status move sets besides the status: when the deployment became ready or was destroyed, and its health. */
function lifecycleFields(to: DeploymentStatus, t: Transition): Partial<DeploymentRecord> {
  if (to === 'ready') return { ready_at: t.at, ...(t.health ? { health: { status: t.health.status, since: t.health.since } } : {}) };
  if (to === 'destroyed') return { destroyed_at: t.at };
  return {};
}

/**
 * Applies a transition if the operation (and deployment) are still as read.
 * Returns false when they were not: someone else moved them first.
 */
export async function applyTransition(t: Transition): Promise<boolean> {
  const op = t.operation;
  const counts = new StatusCountChanges();
  const ending = t.change.status !== undefined && isTerminal(t.change.status) && !isTerminal(op.status);
  if (t.change.status && t.change.status !== op.status) counts.moveIn(operationCountedIn(op), op.status, t.change.status);
  const items: Record<string, TransactItem> = {};
  const changes = [t.events.operation(op, { ...op, ...t.change })];
  const depWrite = deploymentWrite(t, ending);
  if (depWrite.item) items.deployment = depWrite.item;
  if (depWrite.change) changes.push(t.events.deployment(...depWrite.change));
  if (t.applied) items.revision = putNew(revisionItem(t.applied.revision));
  if (t.health && t.deployment?.to === 'ready') {
    const d = t.deployment.record;
    items.health = { Put: { TableName: tableName(), Item: healthItem(d.org_id, d.id, t.health, true) } };
  }
  if (t.hibernation) {
    const d = t.hibernation.record;
    const { detail, watched } = t.hibernation.healthItem;
    items.health = { Put: { TableName: tableName(), Item: healthItem(d.org_id, d.id, detail, watched) } };
  }
  if (t.deployment) {
    const { record: d, to } = t.deployment;
    counts.moveIn(deploymentCountedIn(d), d.status, to);
    // A destroyed deployment frees its name (decision 6).
    if (to === 'destroyed') {
      items.name = {
        Delete: {
          TableName: tableName(),
          Key: nameKey(d.org_id, d.name),
          ConditionExpression: 'attribute_not_exists(pk) OR deployment_id = :id',
          ExpressionAttributeValues: { ':id': d.id },
        },
      };
    }
  }
  Object.assign(items, counts.items());
  const visible = Object.keys(items).length > 0 || changes.some((e) => e !== undefined);
  // The operation and its log lines: a log line is no change another write must be ordered with.
  Object.assign(items, operationWrites(op, t.change, t.at, t.lines));
  // A change no client sees (the phase's job) writes the operation alone.
  if (!visible) return commitTransition(items);
  // The organization's lock numbers the events; losing it to another write only means starting again from it.
  return withWriteState(
    op.org_id,
    undefined,
    async ({ org }) => {
      const snap = snapshotOf(org, new Date(t.at));
      const events = eventWrites(op.org_id, snap, changes);
      const committed = await commitTransition({ ...items, org: orgUpdate(op.org_id, snap, events.set), ...events.items });
      if (committed) remember(op.org_id, orgAfter(op.org_id, snap, events.set), depWrite.change?.[1]);
      return committed;
    },
    t.retries,
  );
}

/** True when committed, false when the operation or deployment moved first; losing only the org's lock retries. */
async function commitTransition(items: Record<string, TransactItem>): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (e) {
    if (!(e instanceof TransactionRefused)) throw e;
    if ([...e.failed].some((name) => name !== 'org')) return false;
    throw new Retry(e.current);
  }
}
