/**
 * The organization's lock. The organization item carries the counters every write that
 * numbers something takes under an optimistic lock (`ver`): the dense sequences
 * (deployments, operations, operations per type, events) and `last_at`, which makes every
 * new record's timestamp strictly later than the previous one, so sequence order and time
 * order agree. A write reads the organization (and the deployment it is on), numbers from
 * it, and commits with orgUpdate; withWriteState runs it until it commits. See
 * docs/data-model.md.
 */
import { AsyncResource } from 'node:async_hooks';
import { BatchGetCommand, type BatchGetCommandInput, type BatchGetCommandOutput, GetCommand } from '@aws-sdk/lib-dynamodb';
import { deploymentKey, orgKey } from '../../../contract/table/entities.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import { ddb, tableName } from './client.js';
import { toDeployment } from './deployment-reads.js';
import { gathering, pastBudget, Retry, type RetryPolicy, type TransactItem, updateParts, withCondition, withRetries } from './transact.js';

export type Item = Record<string, unknown>;

export interface OrgSnapshot {
  item: Item;
  ver: number;
  /** The instant for records written now: after `last_at`, never before the clock. */
  at: string;
}

/** The org item as a write will number from, stamped with the instant the write commits at. */
export function snapshotOf(item: Item, now: Date): OrgSnapshot {
  const last = typeof item.last_at === 'string' ? Date.parse(item.last_at) + 1 : 0;
  return { item, ver: Number(item.ver ?? 0), at: new Date(Math.max(now.getTime(), last)).toISOString() };
}

/** A counter of the organization item (absent is 0). */
export const num = (item: Item, attr: string) => Number(item[attr] ?? 0);

export async function readOrg(orgId: string): Promise<Item> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: orgKey(orgId), ConsistentRead: true }));
  return Item ?? {};
}

/** What a lifecycle write starts from: the organization item and, for a write on one, the deployment. */
export interface WriteState {
  org: Item;
  deployment?: DeploymentRecord;
}

/** Items by key in consistent BatchGetItems (at most 100 keys each). */
export async function batchGet(keys: { pk: string; sk: string }[]): Promise<Item[]> {
  const found: Item[] = [];
  for (let at = 0; at < keys.length; at += 100) {
    let request: BatchGetCommandInput['RequestItems'] = { [tableName()]: { Keys: keys.slice(at, at + 100), ConsistentRead: true } };
    // DynamoDB may hand back part of a batch as unprocessed; ask again for the rest.
    for (let i = 0; request && Object.keys(request).length > 0; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, Math.min(200, 10 * 2 ** i)));
      const out: BatchGetCommandOutput = await ddb.send(new BatchGetCommand({ RequestItems: request }));
      found.push(...(out.Responses?.[tableName()] ?? []));
      request = out.UnprocessedKeys;
    }
  }
  return found;
}

/** Both items in one consistent BatchGetItem: one round trip, not two. */
async function readForWrite(orgId: string, deploymentId?: string): Promise<WriteState> {
  if (deploymentId === undefined) return { org: await readOrg(orgId) };
  const found = await batchGet([orgKey(orgId), deploymentKey(orgId, deploymentId)]);
  const deployment = found.find((item) => item.sk === deploymentKey(orgId, deploymentId).sk);
  return { org: found.find((item) => item.sk === orgKey(orgId).sk) ?? {}, deployment: deployment && toDeployment(deployment) };
}

/**
 * What this process's last committed write left of each organization it wrote: the next
 * write there starts from it without reading. A write committed elsewhere meanwhile only
 * makes that attempt's conditions fail, and DynamoDB hands back the items as they are.
 */
const lastWritten = new Map<string, WriteState>();
const ORGS_REMEMBERED = 1_000;

/** Keeps what a committed write left: the organization as orgAfter says, and the deployment it wrote. */
export function remember(orgId: string, org: Item, deployment: DeploymentRecord | undefined): void {
  const gathered = gathering.getStore();
  if (gathered) {
    gathered.after = { org, deployment };
    return;
  }
  if (lastWritten.size >= ORGS_REMEMBERED) lastWritten.clear();
  lastWritten.set(orgId, { org, deployment });
}

/** What this process's last committed write left of the organization, taken (a group commit starts from it). */
export function takeRemembered(orgId: string): WriteState | undefined {
  const state = lastWritten.get(orgId);
  lastWritten.delete(orgId);
  return state;
}

/** The remembered state, if it covers the deployment this write is on. */
function remembered(orgId: string, deploymentId: string | undefined): WriteState | undefined {
  const state = takeRemembered(orgId);
  if (!state || (deploymentId !== undefined && state.deployment?.id !== deploymentId)) return undefined;
  return deploymentId === undefined ? { org: state.org } : state;
}

/**
 * Attempts on one organization from this process take turns. Every visible change is
 * numbered under the organization's lock, so concurrent attempts would mostly refuse each
 * other: a herd of N costs N² transactions. In turn, each attempt starts from what the
 * previous one left. A turn takes every attempt waiting in line and commits them in one
 * transaction (a group commit, decision 300): each is built from the state the one before
 * it leaves, in the order they queued, so the numbers stay dense and in the order of the
 * changes, and one organization's writes cost one transaction per turn, not one each.
 * Across processes (Lambda containers) the optimistic lock and the jittered backoff of
 * withRetries remain the arbiter.
 */
export interface Waiting {
  deploymentId: string | undefined;
  attempt: (state: WriteState) => Promise<unknown>;
  /** The state a refused attempt brought back, for its next one. */
  known: WriteState | undefined;
  policy: RetryPolicy;
  /** Writes of the same gatherer's key may be gathered into one group (WriteOptions.gather). */
  gather: Gatherer | undefined;
  /**
   * The caller's async context (its logger keys, request id, and locally the function it
   * runs in): whatever is done for this write runs in it, not in that of the write that
   * happened to start serving the line.
   */
  scope: AsyncResource;
  done: (outcome: { value: unknown } | { error: unknown }) => void;
}
const lines = new Map<string, Waiting[]>();

const TURN_MARGIN_MS = 2_000;

function inTurn(orgId: string, job: Omit<Waiting, 'done' | 'scope'>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const waiting: Waiting = {
      ...job,
      scope: new AsyncResource('OrgWrite'),
      done: (o) => {
        clearTimeout(timer);
        if ('value' in o) resolve(o.value);
        else reject(o.error);
      },
    };
    const line = lines.get(orgId);
    if (line) line.push(waiting);
    else {
      lines.set(orgId, [waiting]);
      void drain(orgId);
    }
    // A request does not wait in line past its budget: it leaves the line and answers busy, well before the function's timeout.
    const { since, budgetMs } = job.policy;
    if (since === undefined) return;
    timer = setTimeout(
      () => {
        const current = lines.get(orgId);
        const at = current?.indexOf(waiting) ?? -1;
        if (at < 0) return;
        current!.splice(at, 1);
        waiting.done({ error: new Retry() });
      },
      // setTimeout takes at most 2^31 - 1 ms, and fires at once past it: a budget counted from a far clock must not.
      Math.min(2 ** 31 - 1, Math.max(0, since.getTime() + budgetMs - TURN_MARGIN_MS - Date.now())),
    );
    timer.unref?.();
  });
}

/** Serves the organization's line, one turn after another, until nobody waits; the map holds only organizations being written. */
async function drain(orgId: string): Promise<void> {
  const line = lines.get(orgId)!;
  while (line.length > 0) {
    const turn = line.splice(0, line.length);
    // A turn that comes too late is given up, not served past the caller's deadline: a request
    // keeps TURN_MARGIN_MS of its budget for the turn itself (a group's can take a second on a loaded machine).
    const late = (w: Waiting) => pastBudget(w.policy, TURN_MARGIN_MS);
    for (const w of turn.filter(late)) w.done({ error: new Retry() });
    const due = turn.filter((w) => !late(w));
    // In the order they queued: a write that may not be gathered runs alone, the others in groups of one key between them.
    for (let i = 0; i < due.length; ) {
      let j = i + 1;
      const gatherer = due[i]!.gather;
      if (gatherer) while (j < due.length && due[j]!.gather?.key === gatherer.key) j++;
      const cut = j - i === 1 || !gatherer ? await alone(orgId, due[i]!).then(() => []) : await gatherer.together(orgId, due.slice(i, j));
      if (cut.length > 0) {
        line.unshift(...cut, ...due.slice(j));
        break;
      }
      i = j;
    }
  }
  lines.delete(orgId);
}

/** One attempt on its own, from the state it brought back, the state this process left, or a read. */
export async function alone(orgId: string, w: Waiting): Promise<void> {
  try {
    const value = await w.scope.runInAsyncScope(async () => {
      const state = w.known ?? remembered(orgId, w.deploymentId) ?? (await readForWrite(orgId, w.deploymentId));
      w.known = undefined;
      return w.attempt(state);
    });
    w.done({ value });
  } catch (e) {
    w.done({ error: e });
  }
}

/**
 * Gathers a turn's writes of one key into one transaction (group-commit.ts); kept apart so
 * that only the functions whose writes are gathered bundle it.
 */
export interface Gatherer {
  key: string;
  /** Commits the writes together; returns those that must wait for the next turn. */
  together(orgId: string, turn: Waiting[]): Promise<Waiting[]>;
}

export interface WriteOptions {
  /**
   * The attempt may be gathered with others into one transaction (decision 300): it reads
   * nothing but the state it is given, makes one transaction and calls remember() after
   * it, and does nothing else after that transaction. An attempt that reads a record of
   * its own (a destroy reads the operation in flight, an update a revision) would not see
   * what the writes gathered before it left uncommitted, so it is not gathered. Only writes
   * with the same key are gathered together: give one key to writes whose transactions
   * need the same grants (one function's), as a group commits in one write's context
   * (`gatherAs(key)` in group-commit.ts).
   */
  gather?: Gatherer;
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
  options: WriteOptions = {},
): Promise<T> {
  let known: WriteState | undefined;
  const tried = async (state: WriteState) => {
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
  };
  return withRetries(async () => {
    const job = { deploymentId, attempt: tried, known, policy, gather: options.gather };
    known = undefined;
    return (await inTurn(orgId, job)) as T;
  }, policy);
}

/** The organization item as a committed orgUpdate leaves it. */
export const orgAfter = (orgId: string, snap: OrgSnapshot, set: Item): Item => ({
  ...snap.item,
  ...set,
  ver: snap.ver + 1,
  last_at: snap.at,
  org_id: orgId,
});

/** Each org update's snapshot and counters, so a group commit can fold several into one. */
const orgWrites = new WeakMap<TransactItem, { snap: OrgSnapshot; set: Item }>();
/** The snapshot and counters of an org update made by orgUpdate, for a group commit to fold. */
export const orgWriteOf = (item: TransactItem) => orgWrites.get(item);

/** The org update that takes the lock and sets the counters (named `org` in every transaction). */
export function orgUpdate(orgId: string, snap: OrgSnapshot, set: Item): TransactItem {
  const item = orgUpdateFrom(orgId, snap, snap, set);
  orgWrites.set(item, { snap, set });
  return item;
}

/** The org update of writes numbered from `first` to `last`: locked on what `first` read, leaving what `last` leaves. */
export function orgUpdateFrom(orgId: string, first: OrgSnapshot, last: OrgSnapshot, set: Item): TransactItem {
  const parts = updateParts({ ...set, ver: last.ver + 1, last_at: last.at, org_id: orgId });
  const lock = first.ver === 0 ? 'attribute_not_exists(#ver)' : '#ver = :ver';
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      ...withCondition(parts, lock, { '#ver': 'ver' }, first.ver === 0 ? {} : { ':ver': first.ver }),
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
    },
  };
}

/** A Put of a new item: it holds only if no item has that key. */
export const putNew = (Item: Item): TransactItem => ({
  Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
});
