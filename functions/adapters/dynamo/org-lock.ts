/**
 * The organization's lock. The organization item carries the counters every write that
 * numbers something takes under an optimistic lock (`ver`): the dense sequences
 * (deployments, operations, operations per type, events) and `last_at`, which makes every
 * new record's timestamp strictly later than the previous one, so sequence order and time
 * order agree. A write reads the organization (and the deployment it is on), numbers from
 * it, and commits with orgUpdate; withWriteState runs it until it commits. See
 * docs/data-model.md.
 */
import { BatchGetCommand, type BatchGetCommandInput, type BatchGetCommandOutput, GetCommand } from '@aws-sdk/lib-dynamodb';
import { deploymentKey, orgKey } from '../../../contract/table/entities.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import { ddb, tableName } from './client.js';
import { toDeployment } from './deployment-reads.js';
import { pastBudget, Retry, type RetryPolicy, type TransactItem, updateParts, withCondition, withRetries } from './transact.js';

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

/** Keeps what a committed write left: the organization as orgAfter says, and the deployment it wrote. */
export function remember(orgId: string, org: Item, deployment: DeploymentRecord | undefined): void {
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

/** The organization item as a committed orgUpdate leaves it. */
export const orgAfter = (orgId: string, snap: OrgSnapshot, set: Item): Item => ({
  ...snap.item,
  ...set,
  ver: snap.ver + 1,
  last_at: snap.at,
  org_id: orgId,
});

/** The org update that takes the lock and sets the counters (named `org` in every transaction). */
export function orgUpdate(orgId: string, snap: OrgSnapshot, set: Item): TransactItem {
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

/** A Put of a new item: it holds only if no item has that key. */
export const putNew = (Item: Item): TransactItem => ({
  Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
});
