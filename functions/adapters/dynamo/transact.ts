/**
 * Transactions and their failures, translated for the repositories: which item's
 * condition failed, named, or whether DynamoDB saw a conflicting transaction (retry).
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ddb } from './client.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The transaction was refused; `failed` names the items whose conditions failed. */
export class TransactionRefused extends Error {
  constructor(
    readonly failed: ReadonlySet<string>,
    readonly conflict: boolean,
  ) {
    super(conflict ? 'transaction conflict' : `condition failed on ${[...failed].join(', ')}`);
    this.name = 'TransactionRefused';
  }
}

/**
 * Writes the named items in one transaction. The names are the caller's own, so a
 * failed condition is reported by what it guarded, whatever the items' order.
 */
export async function transact(items: Readonly<Record<string, TransactItem | undefined>>): Promise<void> {
  const named = Object.entries(items).filter((entry): entry is [string, TransactItem] => entry[1] !== undefined);
  try {
    await ddb.send(new TransactWriteCommand({ TransactItems: named.map(([, item]) => item) }));
  } catch (e) {
    if (!(e instanceof TransactionCanceledException)) throw e;
    const reasons = e.CancellationReasons ?? [];
    const failed = new Set(reasons.flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [named[i]![0]] : [])));
    const conflict = reasons.some((r) => r.Code === 'TransactionConflict');
    if (failed.size === 0 && !conflict) throw e;
    throw new TransactionRefused(failed, conflict);
  }
}

/**
 * Runs `attempt` until it commits. Optimistic locks and transaction conflicts make an
 * attempt throw Retry; the pause grows with jitter so contenders spread out.
 */
export class Retry extends Error {
  constructor() {
    super('retry');
    this.name = 'Retry';
  }
}

export async function withRetries<T>(attempt: () => Promise<T>, maxAttempts = 40): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      const retriable = e instanceof Retry || (e instanceof TransactionRefused && e.conflict && e.failed.size === 0);
      if (!retriable || i >= maxAttempts) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** Math.min(i, 6))));
    }
  }
}

/** `SET a = :a, …` / `ADD n :n, …` / `REMOVE x` from plain maps; names are the code's own, never request input. */
export function updateParts(set: Record<string, unknown>, add: Record<string, number> = {}, remove: string[] = []) {
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
  const adds = Object.entries(add)
    .filter(([, v]) => v !== 0)
    .map(([attr, v]) => {
      const p = placeholder(attr, v);
      return `${p.name} ${p.value}`;
    });
  const removes = remove.map((attr) => placeholder(attr).name);
  if (sets.length) clauses.push(`SET ${sets.join(', ')}`);
  if (adds.length) clauses.push(`ADD ${adds.join(', ')}`);
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
