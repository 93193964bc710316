/**
 * The writes that move deployments and operations, each one DynamoDB transaction so a
 * record is never half-written. The organization item carries the counters:
 *  - `ver`, an optimistic lock taken by every write that numbers something: the dense
 *    sequences (deployments, operations, operations per type) and `last_at`, which makes
 *    every new record's timestamp strictly later than the previous one, so sequence
 *    order and time order agree;
 *  - `create_hour` / `create_count`, the creation quota (decision 32), exact because it
 *    is checked under the same lock;
 *  - `evt_seq` / `evt_seq_<type>`, the event log's dense sequences (decision 37): every
 *    write appends the events of what it changed, numbered under the same lock.
 * See docs/data-model.md.
 */
import { BatchGetCommand, type BatchGetCommandInput, type BatchGetCommandOutput, GetCommand } from '@aws-sdk/lib-dynamodb';
import { type DeploymentRecord, deploymentView, inFlightEntry } from '../../core/deployments.js';
import { apiError } from '../../core/errors.js';
import { changeEvent, type PendingEvent } from '../../core/events.js';
import { isTerminal, type OperationPositions, type OperationRecord, operationView } from '../../core/operations.js';
import { type Limits, limitExceeded, windowsAt } from '../../core/rate-limits.js';
import type { RevisionRecord } from '../../core/revisions.js';
import type { DeploymentStatus, OperationStatus, OperationType } from '../../core/schemas.js';
import { config } from '../../lib/config.js';
import { ddb, tableName } from './client.js';
import { opCountAttr, toDeployment } from './deployment-reads.js';
import { ACTIVE_OPERATIONS, deploymentKey, eventKey, lists, nameKey, operationKey, orgKey, revisionKey, seqKey } from './item-keys.js';
import { StatusCountChanges } from './status-counts.js';
import {
  pastBudget,
  Retry,
  type RetryPolicy,
  type TransactItem,
  TransactionRefused,
  transact,
  updateParts,
  withCondition,
  withRetries,
} from './transact.js';

export const typeSeqAttr = (t: OperationType) => `seq_${t}`;
export const eventTypeSeqAttr = (t: string) => `evt_seq_${t}`;

type Item = Record<string, unknown>;

interface OrgSnapshot {
  item: Item;
  ver: number;
  /** The instant for records written now: after `last_at`, never before the clock. */
  at: string;
}

/** The org item as a write will number from, stamped with the instant the write commits at. */
function snapshotOf(item: Item, now: Date): OrgSnapshot {
  const last = typeof item.last_at === 'string' ? Date.parse(item.last_at) + 1 : 0;
  return { item, ver: Number(item.ver ?? 0), at: new Date(Math.max(now.getTime(), last)).toISOString() };
}

async function readOrg(orgId: string): Promise<Item> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true }));
  return Item ?? {};
}

/** What a lifecycle write starts from: the organization item and, for a write on one, the deployment. */
export interface WriteState {
  org: Item;
  deployment?: DeploymentRecord;
}

/** Both items in one consistent BatchGetItem: one round trip, not two. */
async function readForWrite(orgId: string, deploymentId?: string): Promise<WriteState> {
  if (deploymentId === undefined) return { org: await readOrg(orgId) };
  const keys = [orgKey(orgId), deploymentKey(orgId, deploymentId)];
  const found: Item[] = [];
  let request: BatchGetCommandInput['RequestItems'] = { [tableName()]: { Keys: keys, ConsistentRead: true } };
  // DynamoDB may hand back part of a batch as unprocessed; ask again for the rest.
  for (let i = 0; request && Object.keys(request).length > 0; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** i)));
    const out: BatchGetCommandOutput = await ddb.send(new BatchGetCommand({ RequestItems: request }));
    found.push(...(out.Responses?.[tableName()] ?? []));
    request = out.UnprocessedKeys;
  }
  const deployment = found.find((item) => item.sk === deploymentKey(orgId, deploymentId).sk);
  return { org: found.find((item) => item.sk === orgKey(orgId).sk) ?? {}, deployment: deployment && toDeployment(deployment) };
}

/**
 * Attempts on one organization from this process take turns. Every visible change is
 * numbered under the organization's lock, so concurrent attempts would mostly refuse each
 * other: a herd of N costs N² transactions. In turn, each attempt starts from what the
 * previous one left. Across processes (Lambda containers) the optimistic lock and the
 * jittered backoff of withRetries remain the arbiter.
 */
const turns = new Map<string, Promise<unknown>>();

async function inTurn<T>(orgId: string, work: () => Promise<T>): Promise<T> {
  const previous = turns.get(orgId) ?? Promise.resolve();
  const mine = previous.then(work, work);
  const settled = mine.catch(() => undefined);
  turns.set(orgId, settled);
  try {
    return await mine;
  } finally {
    // The last in line clears the entry, so the map holds only organizations being written.
    if (turns.get(orgId) === settled) turns.delete(orgId);
  }
}

/**
 * What this process's last committed write left of each organization it wrote: the next
 * write there starts from it without reading. A write committed elsewhere meanwhile only
 * makes that attempt's conditions fail, and DynamoDB hands back the items as they are.
 */
const lastWritten = new Map<string, WriteState>();
const ORGS_REMEMBERED = 1_000;

function remember(orgId: string, org: Item, deployment: DeploymentRecord | undefined): void {
  if (lastWritten.size >= ORGS_REMEMBERED) lastWritten.clear();
  lastWritten.set(orgId, { org, deployment });
}

/** The remembered state, if it covers the deployment this write is on. */
function remembered(orgId: string, deploymentId: string | undefined): WriteState | undefined {
  const state = lastWritten.get(orgId);
  lastWritten.delete(orgId);
  if (!state || (deploymentId !== undefined && state.deployment?.id !== deploymentId)) return undefined;
  return deploymentId === undefined ? { org: state.org } : state;
}

/**
 * Runs a lifecycle write until it commits, starting each attempt from the organization
 * (and deployment) as they are. A refused write brings back the items it found changed,
 * so the next attempt starts from them without another read.
 */
export function withWriteState<T>(
  orgId: string,
  deploymentId: string | undefined,
  attempt: (state: WriteState) => Promise<T>,
  policy: RetryPolicy,
): Promise<T> {
  let known: WriteState | undefined;
  return withRetries(
    () =>
      inTurn(orgId, async () => {
        // A turn that comes too late is given up, not served past the caller's deadline.
        if (pastBudget(policy)) throw new Retry();
        const state = known ?? remembered(orgId, deploymentId) ?? (await readForWrite(orgId, deploymentId));
        known = undefined;
        try {
          return await attempt(state);
        } catch (e) {
          if (e instanceof Retry && e.current.size > 0) {
            const org = e.current.get('org');
            const deployment = e.current.get('deployment');
            known = { org: org ?? state.org, deployment: deployment ? toDeployment(deployment) : state.deployment };
          }
          throw e;
        }
      }),
    policy,
  );
}

const num = (item: Item, attr: string) => Number(item[attr] ?? 0);

/** The organization item as a committed orgUpdate leaves it. */
const orgAfter = (orgId: string, snap: OrgSnapshot, set: Item): Item => ({
  ...snap.item,
  ...set,
  ver: snap.ver + 1,
  last_at: snap.at,
  org_id: orgId,
});

/** The org update that takes the lock and sets the counters. */
function orgUpdate(orgId: string, snap: OrgSnapshot, set: Item): TransactItem {
  const parts = updateParts({ ...set, ver: snap.ver + 1, last_at: snap.at, org_id: orgId });
  const lock = snap.ver === 0 ? 'attribute_not_exists(#ver)' : '#ver = :ver';
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      ...withCondition(parts, lock, { '#ver': 'ver' }, snap.ver === 0 ? {} : { ':ver': snap.ver }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

export function deploymentItem(d: DeploymentRecord, seq: number): Item {
  const { op_counts = {}, in_flight, ...record } = d;
  return {
    ...deploymentKey(d.org_id, d.id),
    ...record,
    // A string set: operations are added and removed by their own writes (ADD, DELETE) without reading it.
    ...(in_flight.length ? { in_flight: new Set(in_flight) } : {}),
    seq,
    ...Object.fromEntries(Object.entries(op_counts).map(([t, n]) => [opCountAttr(t as OperationType), n])),
    gsi1pk: lists.deployments(d.org_id),
    gsi1sk: seqKey(seq),
    gsi4pk: lists.deploymentsByStatus(d.org_id, d.status),
    gsi4sk: seqKey(seq),
  };
}

/** The partition keys of the status lists an operation is in (they move with its status). */
function operationStatusLists(op: OperationRecord, status: OperationStatus): Item {
  return {
    gsi4pk: lists.operationsByStatus(op.org_id, status),
    gsi6pk: lists.operationsByTypeAndStatus(op.org_id, op.type, status),
    gsi7pk: lists.operationsByResourceAndStatus(op.org_id, op.resource_id, status),
    gsi9pk: lists.operationsByResourceTypeAndStatus(op.org_id, op.resource_id, op.type, status),
  };
}

export function operationItem(op: OperationRecord, p: OperationPositions): Item {
  const { positions: _, ...record } = op;
  return {
    ...operationKey(op.org_id, op.id),
    ...record,
    seq: p.all,
    type_seq: p.type,
    res_seq: p.resource,
    res_type_seq: p.resourceType,
    gsi1pk: lists.operations(op.org_id),
    gsi1sk: seqKey(p.all),
    gsi2pk: lists.operationsByType(op.org_id, op.type),
    gsi2sk: seqKey(p.type),
    gsi3pk: lists.operationsByResource(op.org_id, op.resource_id),
    gsi3sk: seqKey(p.resource),
    gsi8pk: lists.operationsByResourceAndType(op.org_id, op.resource_id, op.type),
    gsi8sk: seqKey(p.resourceType),
    ...operationStatusLists(op, op.status),
    gsi4sk: seqKey(p.all),
    gsi6sk: seqKey(p.type),
    gsi7sk: seqKey(p.resource),
    gsi9sk: seqKey(p.resourceType),
    ...(isTerminal(op.status) ? {} : { gsi5pk: ACTIVE_OPERATIONS, gsi5sk: `${op.requested_at}#${op.id}` }),
  };
}

/** The dense lists an operation is counted in by status, with its position in each. */
export function operationCountedIn(op: OperationRecord): [base: string, position: number][] {
  const p = op.positions;
  if (!p) throw new Error(`operation ${op.id} was not read with its list positions`);
  return [
    [lists.operations(op.org_id), p.all],
    [lists.operationsByType(op.org_id, op.type), p.type],
    [lists.operationsByResource(op.org_id, op.resource_id), p.resource],
    [lists.operationsByResourceAndType(op.org_id, op.resource_id, op.type), p.resourceType],
  ];
}

/** The one dense list a deployment is counted in by status: the organization's deployments. */
export function deploymentCountedIn(d: DeploymentRecord): [base: string, position: number][] {
  if (d.seq === undefined) throw new Error(`deployment ${d.id} was not read with its list position`);
  return [[lists.deployments(d.org_id), d.seq]];
}

/** Counts a record's move from `from` (absent for a new one) to `to` in every list it is counted in. */
function countMove(changes: StatusCountChanges, countedIn: [string, number][], from: string | undefined, to: string): void {
  for (const [base, position] of countedIn) changes.move(base, position, from, to);
}

/** Revision n of a deployment (decision 43), written by the write that applies it. */
export const revisionItem = (r: RevisionRecord): Item => ({ ...revisionKey(r.org_id, r.deployment_id, r.revision), ...r });

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
  /** The organization item as last read (withWriteState). */
  org: Item;
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
  const snap = snapshotOf(req.org, now);
  const hour = windowsAt(now).hourStart;
  const created = num(snap.item, 'create_hour') === hour ? num(snap.item, 'create_count') : 0;
  if (created >= req.limits.createsPerHour) throw limitExceeded('creations', req.limits, now);

  const built = req.build(snap.at);
  const depSeq = num(snap.item, 'dep_seq') + 1;
  const positions: OperationPositions = {
    all: num(snap.item, 'op_seq') + 1,
    type: num(snap.item, typeSeqAttr(built.operation.type)) + 1,
    resource: 1,
    resourceType: 1,
  };
  const deployment: DeploymentRecord = { ...built.deployment, seq: depSeq, op_counts: { [built.operation.type]: 1 } };
  const operation: OperationRecord = { ...built.operation, positions };
  const counts = new StatusCountChanges();
  countMove(counts, deploymentCountedIn(deployment), undefined, deployment.status);
  countMove(counts, operationCountedIn(operation), undefined, operation.status);
  const events = eventWrites(req.orgId, snap, [deploymentEvent(undefined, deployment), operationEvent(undefined, operation)]);
  const orgSet: Item = {
    dep_seq: depSeq,
    op_seq: positions.all,
    [typeSeqAttr(operation.type)]: positions.type,
    create_hour: hour,
    create_count: created + 1,
    ...events.set,
  };
  const items = {
    org: orgUpdate(req.orgId, snap, orgSet),
    deployment: put(deploymentItem(deployment, depSeq)),
    operation: put(operationItem(operation, positions)),
    ...counts.items(),
    // Decision 6: the name item exists while a deployment that is not destroyed holds the name.
    name: put({ ...nameKey(req.orgId, deployment.name), deployment_id: deployment.id, name: deployment.name }),
    revision: put(
      revisionItem({
        org_id: req.orgId,
        deployment_id: deployment.id,
        revision: 1,
        config: deployment.config,
        created_at: deployment.created_at,
        operation_id: operation.id,
        rollback_of: null,
      }),
    ),
    ...events.items,
  };
  try {
    await transact(items);
  } catch (e) {
    if (!(e instanceof TransactionRefused)) throw e;
    if (e.failed.has('name')) throw apiError('DEPLOYMENT_NAME_TAKEN', { name: deployment.name });
    throw new Retry(e.current);
  }
  remember(req.orgId, orgAfter(req.orgId, snap, orgSet), deployment);
  return { deployment, operation };
}

// ---- starting an operation on an existing deployment ------------------------------

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
}

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
  const counts = new StatusCountChanges();
  countMove(counts, operationCountedIn(operation), undefined, operation.status);
  if (req.deploymentStatus) countMove(counts, deploymentCountedIn(d), d.status, req.deploymentStatus);
  if (req.cancel) countMove(counts, operationCountedIn(req.cancel.operation), req.cancel.operation.status, 'canceled');

  const depSet: Item = {
    op_count: d.op_count + 1,
    [opCountAttr(operation.type)]: typeCount,
    last_operation_id: operation.id,
    updated_at: snap.at,
  };
  const entry = inFlightEntry(operation);
  // A destroy supersedes what was in flight; another operation joins it.
  const inFlight = req.deploymentStatus ? [entry] : [...d.in_flight, entry];
  if (req.deploymentStatus)
    Object.assign(depSet, {
      status: req.deploymentStatus,
      gsi4pk: lists.deploymentsByStatus(d.org_id, req.deploymentStatus),
      in_flight: new Set(inFlight),
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
  };
  const events = eventWrites(d.org_id, snap, [
    req.cancel && canceled && operationEvent(req.cancel.operation, { ...req.cancel.operation, ...canceled }),
    operationEvent(undefined, operation),
    deploymentEvent(d, moved),
  ]);
  const orgSet: Item = { op_seq: positions.all, [typeSeqAttr(operation.type)]: positions.type, ...events.set };
  const items = {
    org: orgUpdate(d.org_id, snap, orgSet),
    deployment: {
      Update: {
        TableName: tableName(),
        Key: deploymentKey(d.org_id, d.id),
        ...withCondition(
          req.deploymentStatus ? updateParts(depSet) : addToSet(updateParts(depSet), 'in_flight', entry),
          '#st = :expected AND #oc = :count',
          { '#st': 'status', '#oc': 'op_count' },
          { ':expected': d.status, ':count': d.op_count },
        ),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
      },
    },
    operation: put(operationItem(operation, positions)),
    canceled: req.cancel && canceled && operationUpdate(req.cancel.operation, canceled),
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

// ---- moving an operation (and its deployment) ---------------------------------------

export type OperationChange = Partial<
  Pick<OperationRecord, 'status' | 'phase' | 'message' | 'started_at' | 'ended_at' | 'error' | 'result' | 'job'>
>;

/** The update of one operation, conditional on the status it was read in. */
function operationUpdate(op: OperationRecord, change: OperationChange): TransactItem {
  const set: Item = { ...change };
  const remove: string[] = [];
  if (change.status && change.status !== op.status) {
    Object.assign(set, operationStatusLists(op, change.status));
    if (isTerminal(change.status)) remove.push('gsi5pk', 'gsi5sk');
  }
  return {
    Update: {
      TableName: tableName(),
      Key: operationKey(op.org_id, op.id),
      ...withCondition(updateParts(set, remove), '#st = :from', { '#st': 'status' }, { ':from': op.status }),
    },
  };
}

export interface Transition {
  operation: OperationRecord;
  change: OperationChange;
  /** The deployment's move, if any: it holds only if the deployment is still in `from`. */
  deployment?: { record: DeploymentRecord; to: DeploymentStatus };
  /** A configuration update's success: the deployment takes it as its next revision (decision 42). */
  applied?: { record: DeploymentRecord; revision: RevisionRecord };
  at: string;
  /** How long to keep retrying the organization's lock. */
  retries: RetryPolicy;
}

/** A set-valued attribute's ADD or DELETE clause, after the SET/REMOVE ones of `parts`. */
function withSetClause(parts: ReturnType<typeof updateParts>, verb: 'ADD' | 'DELETE', attr: string, element: string) {
  return {
    UpdateExpression: `${parts.UpdateExpression} ${verb} #set :element`.trim(),
    ExpressionAttributeNames: { ...parts.ExpressionAttributeNames, '#set': attr },
    ExpressionAttributeValues: { ...parts.ExpressionAttributeValues, ':element': new Set([element]) },
  };
}
const addToSet = (parts: ReturnType<typeof updateParts>, attr: string, element: string) => withSetClause(parts, 'ADD', attr, element);

/**
 * The deployment item's part of a transition: its status move, a configuration applied,
 * and, when the operation ends, its leaving `in_flight` (decision 42's 409s read it).
 */
function deploymentWrite(t: Transition, ending: boolean): { item?: TransactItem; event?: [DeploymentRecord, DeploymentRecord] } {
  const op = t.operation;
  const set: Item = {};
  let condition = 'attribute_exists(pk)';
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  let before: DeploymentRecord | undefined;
  let after: DeploymentRecord | undefined;
  if (t.deployment) {
    const { record: d, to } = t.deployment;
    Object.assign(set, { status: to, gsi4pk: lists.deploymentsByStatus(d.org_id, to), updated_at: t.at });
    condition = '#st = :from';
    Object.assign(names, { '#st': 'status' });
    Object.assign(values, { ':from': d.status });
    before = d;
    after = { ...d, status: to, updated_at: t.at };
  }
  if (t.applied) {
    const { record: d, revision: r } = t.applied;
    Object.assign(set, { config: r.config, revision: r.revision, applied_at: r.created_at, updated_at: t.at });
    // Applied once: only onto the revision it follows.
    condition = '(attribute_not_exists(#rev) AND :prev = :one) OR #rev = :prev';
    Object.assign(names, { '#rev': 'revision' });
    Object.assign(values, { ':prev': r.revision - 1, ':one': 1 });
    before = d;
    after = { ...d, config: r.config, revision: r.revision, applied_at: r.created_at, updated_at: t.at };
  }
  if (!before && !ending) return {};
  if (after && ending) after = { ...after, in_flight: after.in_flight.filter((e) => e !== inFlightEntry(op)) };
  const parts = updateParts(set);
  const update = ending ? withSetClause(parts, 'DELETE', 'in_flight', inFlightEntry(op)) : parts;
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: deploymentKey(op.org_id, op.resource_id),
        ...withCondition(update, condition, names, values),
      },
    },
    event: before && after && [before, after],
  };
}

/**
 * Applies a transition if the operation (and deployment) are still as read.
 * Returns false when they were not: someone else moved them first.
 */
export async function applyTransition(t: Transition): Promise<boolean> {
  const op = t.operation;
  const counts = new StatusCountChanges();
  const ending = t.change.status !== undefined && isTerminal(t.change.status) && !isTerminal(op.status);
  if (t.change.status && t.change.status !== op.status) countMove(counts, operationCountedIn(op), op.status, t.change.status);
  const items: Record<string, TransactItem> = { operation: operationUpdate(op, t.change) };
  const changes = [operationEvent(op, { ...op, ...t.change })];
  const depWrite = deploymentWrite(t, ending);
  if (depWrite.item) items.deployment = depWrite.item;
  if (depWrite.event) changes.push(deploymentEvent(...depWrite.event));
  if (t.applied) items.revision = put(revisionItem(t.applied.revision));
  if (t.deployment) {
    const { record: d, to } = t.deployment;
    countMove(counts, deploymentCountedIn(d), d.status, to);
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
  const visible = Object.keys(items).length > 1 || changes.some((e) => e !== undefined);
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
      if (committed) remember(op.org_id, orgAfter(op.org_id, snap, events.set), depWrite.event?.[1]);
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
