/**
 * Status counts per bucket of a dense list, so that a status-filtered page is found by
 * arithmetic instead of skipping through the list (docs/data-model.md).
 *
 * Every dense list (all operations, one type, one deployment, one deployment and type,
 * all deployments) numbers its members 1..n for good. Its members' statuses change, so
 * the list of one status cannot be dense; instead, for each bucket of STATUS_BUCKET
 * positions, one small item counts the members in each status (`n_<status>`), changed in
 * the same transaction as every status change. Page N of (list, status), newest first:
 * read the list's bucket items (one Query; one item per 50 positions), sum from the newest
 * bucket to find the one that holds the page's first member and how many of that
 * status come before it there (fewer than 50), then read the status index from that
 * bucket's top down: the skipped members and the page, nothing else.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { STATUS_BUCKET, seqKey, statusCounts, statusCountsKey } from '../../../contract/table/entities.js';
import type { Entity, NamedIndex } from '../../../contract/table/entity.js';
import { type PageRequest, pageWindow } from '../../core/pagination.js';
import { ddb, tableName } from './client.js';
import { type Page, queryAll } from './list-query.js';
import type { TransactItem } from './transact.js';

type Item = Record<string, unknown>;

const countAttr = (status: string) => `n_${status}`;

/** The bucket updates of one write, merged per item (a transaction may touch an item once). */
export class StatusCountChanges {
  private readonly byItem = new Map<string, { key: { pk: string; sk: string }; deltas: Map<string, number> }>();

  /** `member` of list `base` at `position` leaves status `from` (if any) for `to`. */
  move(base: string, position: number, from: string | undefined, to: string): this {
    if (from === to) return this;
    const key = statusCountsKey(base, position);
    const id = `${key.pk}|${key.sk}`;
    const entry = this.byItem.get(id) ?? { key, deltas: new Map<string, number>() };
    this.byItem.set(id, entry);
    if (from !== undefined) entry.deltas.set(from, (entry.deltas.get(from) ?? 0) - 1);
    entry.deltas.set(to, (entry.deltas.get(to) ?? 0) + 1);
    return this;
  }

  /** A record's move from `from` (absent for a new one) to `to` in every list it is counted in. */
  moveIn(countedIn: [list: string, position: number][], from: string | undefined, to: string): this {
    for (const [list, position] of countedIn) this.move(list, position, from, to);
    return this;
  }

  /** One Update per bucket item, named `count1`, `count2`, … */
  items(): Record<string, TransactItem> {
    const out: Record<string, TransactItem> = {};
    let i = 0;
    for (const { key, deltas } of this.byItem.values()) {
      const moved = [...deltas].filter(([, n]) => n !== 0);
      if (moved.length === 0) continue;
      const names = Object.fromEntries(moved.map(([status], j) => [`#n${j}`, countAttr(status)]));
      const values = Object.fromEntries(moved.map(([, n], j) => [`:n${j}`, n]));
      out[`count${++i}`] = {
        Update: {
          TableName: tableName(),
          Key: key,
          UpdateExpression: `ADD ${moved.map((_, j) => `#n${j} :n${j}`).join(', ')}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      };
    }
    return out;
  }
}

/** The bucket items that count these members, for writing them all at once (the benchmark's seed). */
export function statusCountItems(members: Iterable<{ countedIn: [string, number][]; status: string }>): Item[] {
  const items = new Map<string, Item>();
  for (const { countedIn, status } of members) {
    for (const [base, position] of countedIn) {
      const key = statusCountsKey(base, position);
      const item = items.get(`${key.pk}|${key.sk}`) ?? { ...key };
      item[countAttr(status)] = Number(item[countAttr(status)] ?? 0) + 1;
      items.set(`${key.pk}|${key.sk}`, item);
    }
  }
  return [...items.values()];
}

/** Each bucket's count of one status, newest bucket first. */
async function bucketCounts(base: string, status: string): Promise<{ bucket: number; count: number }[]> {
  const out: { bucket: number; count: number }[] = [];
  let start: Item | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ProjectionExpression: 'sk, #n',
        ExpressionAttributeNames: { '#n': countAttr(status) },
        ExpressionAttributeValues: { ':pk': statusCounts.pk.build({ list: base }) },
        ScanIndexForward: false,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) out.push({ bucket: Number(item.sk), count: Number(item[countAttr(status)] ?? 0) });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * Page N, newest first, of the members in `values.status` of the dense list `list` of
 * `entity` (its partition for these values), read from the list's status index, whose
 * partition holds exactly them, sorted by their position in the list.
 */
export async function byStatus(
  entity: Entity<string>,
  list: NamedIndex,
  values: Readonly<Record<string, unknown>> & { status: string },
  req: PageRequest,
): Promise<Page> {
  const index = entity.statusIndexOf(list);
  const buckets = await bucketCounts(list.pk.build(values), values.status);
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  const w = pageWindow(total, req);
  let skip = (req.page - 1) * req.per_page;
  if (skip >= total) return { items: [], pagination: w.pagination };
  // The bucket that holds the page's first member, and how many of its members come before it.
  const first = buckets.find((b) => {
    if (skip < b.count) return true;
    skip -= b.count;
    return false;
  });
  const top = ((first?.bucket ?? 0) + 1) * STATUS_BUCKET;
  const items = await queryAll({
    TableName: tableName(),
    IndexName: index.physical,
    KeyConditionExpression: '#pk = :pk AND #sk <= :top',
    ExpressionAttributeNames: { '#pk': index.pkAttr, '#sk': index.skAttr },
    ExpressionAttributeValues: { ':pk': index.pk.build(values), ':top': seqKey(top) },
    ScanIndexForward: false,
    Limit: skip + req.per_page,
  });
  return { items: items.slice(skip), pagination: w.pagination };
}
