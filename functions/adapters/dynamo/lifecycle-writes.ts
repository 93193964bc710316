/**
 * The writes that move deployments and operations, each one DynamoDB transaction so a
 * record is never half-written. The organization item carries the counters:
 *  - `ver`, an optimistic lock taken by every write that numbers something: the dense
 *    sequences (deployments, operations, operations per type) and `last_at`, which makes
 *    every new record's timestamp strictly later than the previous one, so sequence
 *    order and time order agree;
 *  - `n_dep_<status>` / `n_op_<status>`, totals per status, kept in the same
 *    transaction as each status change, so a list's `total` is one read, never a count;
 *  - `create_hour` / `create_count`, the creation quota (decision 32), exact because it
 *    is checked under the same lock;
 *  - `evt_seq` / `evt_seq_<type>`, the event log's dense sequences (decision 37): every
 *    write appends the events of what it changed, numbered under the same lock.
 * See docs/data-model.md.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type DeploymentRecord, deploymentView } from '../../core/deployments.js';
import { apiError } from '../../core/errors.js';
import { changeEvent, type PendingEvent } from '../../core/events.js';
import { isTerminal, type OperationRecord, operationView } from '../../core/operations.js';
import { type Limits, limitExceeded, windowsAt } from '../../core/rate-limits.js';
import type { DeploymentStatus, OperationStatus, OperationType } from '../../core/schemas.js';
import { config } from '../../lib/config.js';
import { ddb, tableName } from './client.js';
import { ACTIVE_OPERATIONS, deploymentKey, eventKey, lists, nameKey, operationKey, orgKey, seqKey } from './item-keys.js';
import { Retry, type TransactItem, TransactionRefused, transact, updateParts, withCondition, withRetries } from './transact.js';

export const depCounter = (s: DeploymentStatus) => `n_dep_${s}`;
export const opCounter = (s: OperationStatus) => `n_op_${s}`;
export const typeSeqAttr = (t: OperationType) => `seq_${t}`;
export const eventTypeSeqAttr = (t: string) => `evt_seq_${t}`;

type Item = Record<string, unknown>;

interface OrgSnapshot {
  item: Item;
  ver: number;
  /** The instant for records written now: after `last_at`, never before the clock. */
  at: string;
}

async function readOrg(orgId: string, now: Date): Promise<OrgSnapshot> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true }));
  const item = Item ?? {};
  const last = typeof item.last_at === 'string' ? Date.parse(item.last_at) + 1 : 0;
  return { item, ver: Number(item.ver ?? 0), at: new Date(Math.max(now.getTime(), last)).toISOString() };
}

const num = (item: Item, attr: string) => Number(item[attr] ?? 0);

/** The org update that takes the lock and sets the counters; `add` deltas may cancel out. */
function orgUpdate(orgId: string, snap: OrgSnapshot, set: Item, add: Record<string, number>): TransactItem {
  const parts = updateParts({ ...set, ver: snap.ver + 1, last_at: snap.at, org_id: orgId }, add);
  const lock = snap.ver === 0 ? 'attribute_not_exists(#ver)' : '#ver = :ver';
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      ...withCondition(parts, lock, { '#ver': 'ver' }, snap.ver === 0 ? {} : { ':ver': snap.ver }),
    },
  };
}

/** Adds deltas, summing repeated attributes (one attribute may appear once per expression). */
function deltas(...pairs: [string, number][]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of pairs) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function deploymentItem(d: DeploymentRecord, seq: number): Item {
  return {
    ...deploymentKey(d.org_id, d.id),
    ...d,
    seq,
    gsi1pk: lists.deployments(d.org_id),
    gsi1sk: seqKey(seq),
    gsi4pk: lists.deploymentsByStatus(d.org_id, d.status),
    gsi4sk: seqKey(seq),
  };
}

export interface OperationSeqs {
  seq: number;
  typeSeq: number;
  resourceSeq: number;
}

export function operationItem(op: OperationRecord, s: OperationSeqs): Item {
  return {
    ...operationKey(op.org_id, op.id),
    ...op,
    seq: s.seq,
    gsi1pk: lists.operations(op.org_id),
    gsi1sk: seqKey(s.seq),
    gsi2pk: lists.operationsByType(op.org_id, op.type),
    gsi2sk: seqKey(s.typeSeq),
    gsi3pk: lists.operationsByResource(op.org_id, op.resource_id),
    gsi3sk: seqKey(s.resourceSeq),
    gsi4pk: lists.operationsByStatus(op.org_id, op.status),
    gsi4sk: seqKey(s.seq),
    ...(isTerminal(op.status) ? {} : { gsi5pk: ACTIVE_OPERATIONS, gsi5sk: `${op.requested_at}#${op.id}` }),
  };
}

const put = (Item: Item): TransactItem => ({ Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' } });

const deploymentEvent = (before: DeploymentRecord | undefined, after: DeploymentRecord) =>
  changeEvent('deployment', before && deploymentView(before, config().appDomain), deploymentView(after, config().appDomain));
const operationEvent = (before: OperationRecord | undefined, after: OperationRecord) =>
  changeEvent('operation', before && operationView(before), operationView(after));

/**
 * The event items a write appends, numbered after the organization's last event, and the
 * org counters that move with them (set under the org's lock, with the write's other items).
 */
function eventWrites(orgId: string, snap: OrgSnapshot, events: (PendingEvent | undefined)[]) {
  let sequence = num(snap.item, 'evt_seq');
  const set: Item = {};
  const items: Record<string, TransactItem> = {};
  events
    .filter((e): e is PendingEvent => e !== undefined)
    .forEach((e, i) => {
      sequence += 1;
      const typeAttr = eventTypeSeqAttr(e.type);
      const typeSeq = Number(set[typeAttr] ?? num(snap.item, typeAttr)) + 1;
      set[typeAttr] = typeSeq;
      items[`event${i + 1}`] = put({
        ...eventKey(orgId, sequence),
        id: e.id,
        type: e.type,
        sequence,
        created_at: snap.at,
        data: e.data,
        resource_id: e.resourceId,
        gsi1pk: lists.events(orgId),
        gsi1sk: seqKey(sequence),
        gsi2pk: lists.eventsByType(orgId, e.type),
        gsi2sk: seqKey(typeSeq),
        gsi3pk: lists.eventsByResource(orgId, e.resourceId),
        gsi3sk: seqKey(sequence),
      });
    });
  if (Object.keys(items).length) set.evt_seq = sequence;
  return { items, set };
}

// ---- creating a deployment ---------------------------------------------------

export interface NewDeployment {
  orgId: string;
  /** The records, stamped with the instant the transaction will commit them at. */
  build(at: string): { deployment: DeploymentRecord; operation: OperationRecord };
  limits: Limits;
  /** When the request arrived; each attempt stamps its own, later, instant. */
  now: Date;
}

/** One attempt; throws Retry when another write to the organization came first. */
export async function insertDeployment(req: NewDeployment): Promise<{ deployment: DeploymentRecord; operation: OperationRecord }> {
  // The quota window is the one this attempt commits in (contention can make attempts late).
  const now = new Date(Math.max(Date.now(), req.now.getTime()));
  const snap = await readOrg(req.orgId, now);
  const hour = windowsAt(now).hourStart;
  const created = num(snap.item, 'create_hour') === hour ? num(snap.item, 'create_count') : 0;
  if (created >= req.limits.createsPerHour) throw limitExceeded('creations', req.limits, now);

  const { deployment, operation } = req.build(snap.at);
  const depSeq = num(snap.item, 'dep_seq') + 1;
  const opSeq = num(snap.item, 'op_seq') + 1;
  const typeSeq = num(snap.item, typeSeqAttr(operation.type)) + 1;
  const events = eventWrites(req.orgId, snap, [deploymentEvent(undefined, deployment), operationEvent(undefined, operation)]);
  const items = {
    org: orgUpdate(
      req.orgId,
      snap,
      {
        dep_seq: depSeq,
        op_seq: opSeq,
        [typeSeqAttr(operation.type)]: typeSeq,
        create_hour: hour,
        create_count: created + 1,
        ...events.set,
      },
      deltas([depCounter(deployment.status), 1], [opCounter(operation.status), 1]),
    ),
    deployment: put(deploymentItem(deployment, depSeq)),
    operation: put(operationItem(operation, { seq: opSeq, typeSeq, resourceSeq: 1 })),
    // Decision 6: the name item exists while a deployment that is not destroyed holds the name.
    name: put({ ...nameKey(req.orgId, deployment.name), deployment_id: deployment.id, name: deployment.name }),
    ...events.items,
  };
  try {
    await transact(items);
  } catch (e) {
    if (!(e instanceof TransactionRefused)) throw e;
    if (e.failed.has('name')) throw apiError('DEPLOYMENT_NAME_TAKEN', { name: deployment.name });
    throw new Retry();
  }
  return { deployment, operation };
}

// ---- starting an operation on an existing deployment ------------------------------

export interface NewOperation {
  /** The deployment as read; the write holds only if it is unchanged. */
  deployment: DeploymentRecord;
  build(at: string): OperationRecord;
  /** The deployment's new status, when the operation changes it (a destroy). */
  deploymentStatus?: DeploymentStatus;
  /** An operation in flight that this one supersedes, canceled in the same transaction. */
  cancel?: { operation: OperationRecord; message: string };
  now: Date;
}

export async function insertOperation(req: NewOperation): Promise<OperationRecord> {
  const d = req.deployment;
  const snap = await readOrg(d.org_id, req.now);
  const operation = req.build(snap.at);
  const opSeq = num(snap.item, 'op_seq') + 1;
  const typeSeq = num(snap.item, typeSeqAttr(operation.type)) + 1;
  const counters: [string, number][] = [[opCounter(operation.status), 1]];
  if (req.deploymentStatus) counters.push([depCounter(d.status), -1], [depCounter(req.deploymentStatus), 1]);
  if (req.cancel) counters.push([opCounter(req.cancel.operation.status), -1], [opCounter('canceled'), 1]);

  const depSet: Item = { op_count: d.op_count + 1, last_operation_id: operation.id, updated_at: snap.at };
  if (req.deploymentStatus)
    Object.assign(depSet, { status: req.deploymentStatus, gsi4pk: lists.deploymentsByStatus(d.org_id, req.deploymentStatus) });
  const canceled = req.cancel && { status: 'canceled' as const, message: req.cancel.message, ended_at: snap.at };
  const moved: DeploymentRecord = {
    ...d,
    op_count: d.op_count + 1,
    last_operation_id: operation.id,
    updated_at: snap.at,
    status: req.deploymentStatus ?? d.status,
  };
  const events = eventWrites(d.org_id, snap, [
    req.cancel && canceled && operationEvent(req.cancel.operation, { ...req.cancel.operation, ...canceled }),
    operationEvent(undefined, operation),
    deploymentEvent(d, moved),
  ]);
  const items = {
    org: orgUpdate(d.org_id, snap, { op_seq: opSeq, [typeSeqAttr(operation.type)]: typeSeq, ...events.set }, deltas(...counters)),
    deployment: {
      Update: {
        TableName: tableName(),
        Key: deploymentKey(d.org_id, d.id),
        ...withCondition(
          updateParts(depSet),
          '#st = :expected AND #oc = :count',
          { '#st': 'status', '#oc': 'op_count' },
          { ':expected': d.status, ':count': d.op_count },
        ),
      },
    },
    operation: put(operationItem(operation, { seq: opSeq, typeSeq, resourceSeq: d.op_count + 1 })),
    canceled: req.cancel && canceled && operationUpdate(req.cancel.operation, canceled),
    ...events.items,
  };
  try {
    await transact(items);
  } catch (e) {
    // Any condition failing means something moved since it was read: read again and retry.
    if (!(e instanceof TransactionRefused)) throw e;
    throw new Retry();
  }
  return operation;
}

// ---- moving an operation (and its deployment) ---------------------------------------

export type OperationChange = Partial<
  Pick<OperationRecord, 'status' | 'phase' | 'message' | 'started_at' | 'ended_at' | 'error' | 'result' | 'job'>
>;

/** The update of one operation, conditional on the status it was read in. */
function operationUpdate(op: OperationRecord, change: OperationChange): TransactItem {
  const set: Item = { ...change };
  const remove: string[] = [];
  if (change.status && change.status !== op.status) {
    set.gsi4pk = lists.operationsByStatus(op.org_id, change.status);
    if (isTerminal(change.status)) remove.push('gsi5pk', 'gsi5sk');
  }
  return {
    Update: {
      TableName: tableName(),
      Key: operationKey(op.org_id, op.id),
      ...withCondition(updateParts(set, {}, remove), '#st = :from', { '#st': 'status' }, { ':from': op.status }),
    },
  };
}

export interface Transition {
  operation: OperationRecord;
  change: OperationChange;
  /** The deployment's move, if any: it holds only if the deployment is still in `from`. */
  deployment?: { record: DeploymentRecord; to: DeploymentStatus };
  at: string;
}

/**
 * Applies a transition if the operation (and deployment) are still as read.
 * Returns false when they were not: someone else moved them first.
 */
export async function applyTransition(t: Transition): Promise<boolean> {
  const op = t.operation;
  const counters: [string, number][] = [];
  if (t.change.status && t.change.status !== op.status) counters.push([opCounter(op.status), -1], [opCounter(t.change.status), 1]);
  const items: Record<string, TransactItem> = { operation: operationUpdate(op, t.change) };
  const changes = [operationEvent(op, { ...op, ...t.change })];
  if (t.deployment) {
    const { record: d, to } = t.deployment;
    counters.push([depCounter(d.status), -1], [depCounter(to), 1]);
    items.deployment = {
      Update: {
        TableName: tableName(),
        Key: deploymentKey(d.org_id, d.id),
        ...withCondition(
          updateParts({ status: to, gsi4pk: lists.deploymentsByStatus(d.org_id, to), updated_at: t.at }),
          '#st = :from',
          { '#st': 'status' },
          { ':from': d.status },
        ),
      },
    };
    changes.push(deploymentEvent(d, { ...d, status: to, updated_at: t.at }));
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
  const visible = counters.length > 0 || changes.some((e) => e !== undefined);
  const outcome = await withRetries(async () => {
    // The organization's lock numbers the events; losing it to another write only means reading it again.
    // A change no client sees (the phase's job) writes the operation alone.
    const snap = visible ? await readOrg(op.org_id, new Date(t.at)) : undefined;
    const events = snap ? eventWrites(op.org_id, snap, changes) : { items: {}, set: {} };
    const org = snap ? { org: orgUpdate(op.org_id, snap, events.set, deltas(...counters)) } : {};
    try {
      await transact({ ...items, ...org, ...events.items });
      return true;
    } catch (e) {
      if (!(e instanceof TransactionRefused)) throw e;
      if ([...e.failed].some((name) => name !== 'org')) return false;
      throw new Retry();
    }
  });
  return outcome;
}
