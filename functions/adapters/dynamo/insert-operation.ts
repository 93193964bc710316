/**
 * Starting an operation on an existing deployment: one transaction of the organization
 * (lock, counters), the deployment (its operation counts, and its status for a destroy),
 * the operation, an operation in flight it supersedes (canceled), their status counts and
 * their events.
 */

import type { DeploymentStatus } from '../../../contract/schemas.js';
import { deployment, deploymentKey, opCountAttr, typeSeqAttr } from '../../../contract/table/entities.js';
import { type DeploymentRecord, healthOf, inFlightEntry } from '../../core/deployments.js';
import type { OperationPositions, OperationRecord } from '../../core/operations.js';
import { tableName } from './client.js';
import { type ChangeEvents, eventWrites } from './event-log.js';
import { dueIndexKeys } from './hibernation-store.js';
import { deploymentCountedIn, operationCountedIn, operationItem } from './items.js';
import { operationWrites } from './operation-update.js';
import { type Item, num, orgAfter, orgUpdate, putNew, remember, snapshotOf } from './org-lock.js';
import { StatusCountChanges } from './status-counts.js';
import { Retry, setClause, type TransactItem, TransactionRefused, transact, updateParts, withCondition } from './transact.js';

export interface NewOperation {
  /** The deployment as read; the write holds only if it is unchanged. */
  deployment: DeploymentRecord;
  /** The organization item as last read (withWriteState). */
  org: Item;
  build(at: string): OperationRecord;
  /** The deployment's new status, when the operation changes it (a destroy). */
  deploymentStatus?: DeploymentStatus;
  /** An operation in flight that this one supersedes, canceled in the same transaction. */
  cancel?: { operation: OperationRecord; message: string };
  now: Date;
  events: ChangeEvents;
  /** Fields the request also sets on the deployment (a manual hold's `until` and the scheduler's next visit, decision 50). */
  deploymentFields?: Pick<DeploymentRecord, 'hibernation' | 'hibernation_due'>;
  /** The deployment's `updated_at` the caller decided from: written only while it is still that (the scheduler's transitions). */
  unchangedSince?: string;
}

/** One attempt; throws Retry when the organization or the deployment moved since they were read. */
export async function insertOperation(req: NewOperation): Promise<OperationRecord> {
  const d = req.deployment;
  const snap = snapshotOf(req.org, new Date(Math.max(Date.now(), req.now.getTime())));
  const built = req.build(snap.at);
  const typeCount = (d.op_counts?.[built.type] ?? 0) + 1;
  const positions: OperationPositions = {
    all: num(snap.item, 'op_seq') + 1,
    type: num(snap.item, typeSeqAttr(built.type)) + 1,
    resource: d.op_count + 1,
    resourceType: typeCount,
  };
  const operation: OperationRecord = { ...built, positions };
  const counts = new StatusCountChanges().moveIn(operationCountedIn(operation), undefined, operation.status);
  if (req.deploymentStatus) counts.moveIn(deploymentCountedIn(d), d.status, req.deploymentStatus);
  if (req.cancel) counts.moveIn(operationCountedIn(req.cancel.operation), req.cancel.operation.status, 'canceled');

  const depSet: Item = {
    op_count: d.op_count + 1,
    [opCountAttr(operation.type)]: typeCount,
    last_operation_id: operation.id,
    updated_at: snap.at,
  };
  if (req.deploymentFields) Object.assign(depSet, req.deploymentFields, dueIndexKeys(d, req.deploymentFields));
  const entry = inFlightEntry(operation);
  // A destroy supersedes what was in flight; another operation joins it.
  const inFlight = req.deploymentStatus ? [entry] : [...d.in_flight, entry];
  // Decision 48: a deployment that is not ready has unknown health (the checker drops its health item's components).
  const health = req.deploymentStatus && healthOf(d).status !== 'unknown' ? { health: { status: 'unknown' as const, since: snap.at } } : {};
  if (req.deploymentStatus)
    Object.assign(depSet, {
      status: req.deploymentStatus,
      ...deployment.statusIndexKeys({ ...d }, req.deploymentStatus),
      in_flight: new Set(inFlight),
      ...health,
    });
  const canceled = req.cancel && { status: 'canceled' as const, message: req.cancel.message, ended_at: snap.at };
  const moved: DeploymentRecord = {
    ...d,
    op_count: d.op_count + 1,
    op_counts: { ...d.op_counts, [operation.type]: typeCount },
    last_operation_id: operation.id,
    updated_at: snap.at,
    status: req.deploymentStatus ?? d.status,
    in_flight: inFlight,
    ...health,
    ...req.deploymentFields,
  };
  const events = eventWrites(d.org_id, snap, [
    req.cancel && canceled && req.events.operation(req.cancel.operation, { ...req.cancel.operation, ...canceled }),
    req.events.operation(undefined, operation),
    req.events.deployment(d, moved),
  ]);
  const orgSet: Item = { op_seq: positions.all, [typeSeqAttr(operation.type)]: positions.type, ...events.set };
  const items = {
    org: orgUpdate(d.org_id, snap, orgSet),
    deployment: {
      Update: {
        TableName: tableName(),
        Key: deploymentKey(d.org_id, d.id),
        ...withCondition(
          req.deploymentStatus ? updateParts(depSet) : setClause(updateParts(depSet), 'ADD', 'in_flight', entry),
          `#st = :expected AND #oc = :count${req.unchangedSince === undefined ? '' : ' AND #ua = :ua'}`,
          { '#st': 'status', '#oc': 'op_count', ...(req.unchangedSince === undefined ? {} : { '#ua': 'updated_at' }) },
          { ':expected': d.status, ':count': d.op_count, ...(req.unchangedSince === undefined ? {} : { ':ua': req.unchangedSince }) },
        ),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    },
    operation: putNew(operationItem(operation, positions)),
    ...(req.cancel && canceled ? prefixed('canceled', operationWrites(req.cancel.operation, canceled, snap.at)) : {}),
    ...counts.items(),
    ...events.items,
  };
  try {
    await transact(items);
  } catch (e) {
    // Any condition failing means something moved since it was read: retry from what moved.
    if (!(e instanceof TransactionRefused)) throw e;
    throw new Retry(e.current);
  }
  remember(d.org_id, orgAfter(d.org_id, snap, orgSet), moved);
  return operation;
}

/** The items of another record's writes under names of their own in this transaction. */
const prefixed = (prefix: string, items: Record<string, TransactItem>): Record<string, TransactItem> =>
  Object.fromEntries(Object.entries(items).map(([name, item]) => [name === 'operation' ? prefix : `${prefix}_${name}`, item]));
