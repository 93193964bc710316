/**
 * Transactions and their failures, translated for the repositories: which item's
 * condition failed, named, or whether DynamoDB saw a conflicting transaction (retry).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { apiError } from '../../../contract/errors.js';
import { ddb } from './client.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * The transaction was refused; `failed` names the items whose conditions failed, and
 * `current` holds those items as they now are (for items written with
 * `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), so a retry need not read them again.
 */
export class TransactionRefused extends Error {
  constructor(
    readonly failed: ReadonlySet<string>,
    readonly conflict: boolean,
    readonly current: ReadonlyMap<string, Record<string, unknown>> = new Map(),
  ) {
    super(conflict ? 'transaction conflict' : `condition failed on ${[...failed].join(', ')}`);
    this.name = 'TransactionRefused';
  }
}

/**
 * A write being gathered into one organization's group commit (org-lock.ts, decision 300):
 * its transact() hands the items over instead of writing them, and the group writes them
 * together with the other writes of its turn.
 */
export interface Gathered {
  items?: [string, TransactItem][];
  /** What the write left, as its remember() call says. */
  after?: { org: Record<string, unknown>; deployment?: unknown };
}
export const gathering = new AsyncLocalStorage<Gathered>();

/**
 * Writes the named items in one transaction. The names are the caller's own, so a
 * failed condition is reported by what it guarded, whatever the items' order.
 */
export async function transact(items: Readonly<Record<string, TransactItem | undefined>>): Promise<void> {
  const named = Object.entries(items).filter((entry): entry is [string, TransactItem] => entry[1] !== undefined);
  const gathered = gathering.getStore();
  if (gathered) {
    // Only a write's first transaction is gathered; a write making two cannot join a group.
    if (gathered.items) throw new Error('a gathered write may make one transaction');
    gathered.items = named;
    return;
  }
  try {
    await ddb.send(new TransactWriteCommand({ TransactItems: named.map(([, item]) => item) }));
  } catch (e) {
    if (!(e instanceof TransactionCanceledException)) throw e;
    const reasons = e.CancellationReasons ?? [];
    const failed = new Set(reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [named[i]![0]] : [])));
    const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
    if (failed.size === 0 && !conflict) throw e;
    const current = new Map(
      reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' && r.Item ? [[named[i]![0], unmarshall(r.Item)]] : [])),
    );
    throw new TransactionRefused(failed, conflict, current);
  }
}

/**
 * An attempt lost a race: throwing Retry makes `withRetries` run it again. `current`
 * holds the items the refused write found changed, as they now are, when DynamoDB
 * returned them, so the next attempt can start from them instead of reading again.
 */
export class Retry extends Error {
  constructor(readonly current: ReadonlyMap<string, Record<string, unknown>> = new Map()) {
    super('retry');
    this.name = 'Retry';
  }
}

export interface RetryPolicy {
  /** How long after `since` (the request's arrival, or the first attempt) the last attempt may start. */
  budgetMs: number;
  since?: Date;
  /** Past the budget: answer `429 ORGANIZATION_BUSY` (a request), or throw the last Retry for the caller's own retries (a workflow step). */
  exhausted: 'busy' | 'rethrow';
}

/** A request keeps retrying a contended write until 6 s after it arrived: well inside the HTTP functions' 10 s. */
export const requestRetries = (arrived: Date): RetryPolicy => ({ budgetMs: 6_000, since: arrived, exhausted: 'busy' });
/** A workflow step has a minute; past 40 s its state machine retries the step (Retry in the ASL). */
export const STEP_RETRIES: RetryPolicy = { budgetMs: 40_000, exhausted: 'rethrow' };

/** True once a policy that counts from a request's arrival has no time left. */
export const pastBudget = (policy: RetryPolicy, marginMs = 0): boolean =>
  policy.since !== undefined && Date.now() > policy.since.getTime() + policy.budgetMs - marginMs;

/**
 * Runs `attempt` until it commits. Optimistic locks and transaction conflicts make an
 * attempt throw Retry; the pause is exponential with full jitter (up to 1 s), so many
 * contenders spread out instead of colliding again. Past the budget the write gives
 * up as its policy says: a request with `429 ORGANIZATION_BUSY` and a Retry-After, never a fault.
 */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  const deadline = (policy.since?.getTime() ?? Date.now()) + policy.budgetMs;
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      const retriable = e instanceof Retry || (e instanceof TransactionRefused && e.conflict && e.failed.size === 0);
      if (!retriable) throw e;
      const pause = Math.random() * Math.min(1_000, 10 * 2 ** Math.min(i, 7));
      if (Date.now() + pause > deadline) {
        if (policy.exhausted === 'rethrow') throw e;
        throw apiError('ORGANIZATION_BUSY', { retryAfter: 1 }, { headers: { 'Retry-After': '1' } });
      }
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

/** `SET a = :a, …` / `REMOVE x` from plain maps; names are the code's own, never request input. */
export function updateParts(set: Record<string, unknown>, remove: string[] = []) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses: string[] = [];
  let n = 0;
  /** `#aN` for an attribute name, and `:vN` for its value when it has one. */
  const placeholder = (attr: string, value?: unknown) => {
    const i = n++;
    names[`#a${i}`] = attr;
    if (value !== undefined) values[`:v${i}`] = value;
    return { name: `#a${i}`, value: `:v${i}` };
  };
  const sets = Object.entries(set)
    .filter(([, v]) => v !== undefined)
    .map(([attr, v]) => {
      const p = placeholder(attr, v);
      return `${p.name} = ${p.value}`;
    });
  const removes = remove.map((attr) => placeholder(attr).name);
  if (sets.length) clauses.push(`SET ${sets.join(', ')}`);
  if (removes.length) clauses.push(`REMOVE ${removes.join(', ')}`);
  return { UpdateExpression: clauses.join(' '), ExpressionAttributeNames: names, ExpressionAttributeValues: nonEmpty(values) };
}

/** DynamoDB rejects an empty ExpressionAttributeValues map. */
const nonEmpty = (m: Record<string, unknown>) => (Object.keys(m).length ? m : undefined);

/** Merges expression names/values of a condition into update parts (condition placeholders must not clash). */
export function withCondition(
  parts: ReturnType<typeof updateParts>,
  condition: string,
  names: Record<string, string> = {},
  values: Record<string, unknown> = {},
) {
  return {
    ...parts,
    ConditionExpression: condition,
    ExpressionAttributeNames: { ...parts.ExpressionAttributeNames, ...names },
    ExpressionAttributeValues: nonEmpty({ ...parts.ExpressionAttributeValues, ...values }),
  };
}

/** A string set's ADD or DELETE of one element, after the SET and REMOVE clauses of `parts`: no read of the set needed. */
export function setClause(parts: ReturnType<typeof updateParts>, verb: 'ADD' | 'DELETE', attr: string, element: string) {
  return {
    UpdateExpression: `${parts.UpdateExpression} ${verb} #set :element`.trim(),
    ExpressionAttributeNames: { ...parts.ExpressionAttributeNames, '#set': attr },
    ExpressionAttributeValues: { ...parts.ExpressionAttributeValues, ':element': new Set([element]) },
  };
}
