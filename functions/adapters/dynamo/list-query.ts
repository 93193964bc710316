/**
 * How a list page is read (docs/data-model.md):
 *  - byRange: the list has dense sequence numbers 1..total, so page N is one key range
 *    and reads exactly the items it returns, at any depth (a list of one status is read
 *    through its counts instead, status-counts.ts);
 *  - byFilter: the events of one record, filtered by type (a record has a handful).
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Pagination } from '../../../contract/schemas.js';
import { seqKey } from '../../../contract/table/entities.js';
import type { NamedIndex } from '../../../contract/table/entity.js';
import { type PageRequest, pageWindow } from '../../core/pagination.js';
import { ddb, tableName } from './client.js';

type Values = Readonly<Record<string, unknown>>;

type Item = Record<string, unknown>;

export interface Page {
  items: Item[];
  pagination: Pagination;
}

/**
 * Every item one Query names, up to its `Limit`: DynamoDB stops a Query at 1 MB read, so
 * a page of large items (events that carry a big configuration twice) needs more than one
 * call (decision 225). A page of small items still ends in its first call: the range is
 * read whole, or `Limit` is reached, and DynamoDB gives no `LastEvaluatedKey` to follow.
 */
export async function queryAll(input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  let start = input.ExclusiveStartKey;
  do {
    const left = input.Limit === undefined ? {} : { Limit: input.Limit - items.length };
    const page = await ddb.send(new QueryCommand({ ...input, ...left, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start && (input.Limit === undefined || items.length < input.Limit));
  return items;
}

/** Page N of the dense list `index` holds for these values (its partition), of `total` members. */
export async function byRange(index: NamedIndex, values: Values, total: number, req: PageRequest): Promise<Page> {
  const w = pageWindow(total, req);
  if (w.from > w.to) return { items: [], pagination: w.pagination };
  const items = await queryAll({
    TableName: tableName(),
    IndexName: index.physical,
    KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
    ExpressionAttributeNames: { '#pk': index.pkAttr, '#sk': index.skAttr },
    ExpressionAttributeValues: { ':pk': index.pk.build(values), ':from': seqKey(w.from), ':to': seqKey(w.to) },
    ScanIndexForward: false,
  });
  return { items, pagination: w.pagination };
}

/** Items of one list, newest first; with `limit`, no Query reads past that many items. */
async function* newestFirst(
  index: NamedIndex,
  values: Values,
  extra: Partial<QueryCommandInput> = {},
  limit?: number,
): AsyncGenerator<Item> {
  let start: Item | undefined;
  let read = 0;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index.physical,
        KeyConditionExpression: '#pk = :pk',
        ...extra,
        ExpressionAttributeNames: { '#pk': index.pkAttr, ...extra.ExpressionAttributeNames },
        ExpressionAttributeValues: { ':pk': index.pk.build(values), ...extra.ExpressionAttributeValues },
        ScanIndexForward: false,
        ExclusiveStartKey: start,
        ...(limit === undefined ? {} : { Limit: limit - read }),
      }),
    );
    read += page.Items?.length ?? 0;
    yield* page.Items ?? [];
    start = page.LastEvaluatedKey;
  } while (start && (limit === undefined || read < limit));
}

export async function byFilter(
  index: NamedIndex,
  values: Values,
  filter: { expression: string; names: Record<string, string>; values: Record<string, unknown> } | undefined,
  req: PageRequest,
): Promise<Page> {
  const skip = (req.page - 1) * req.per_page;
  const items: Item[] = [];
  let total = 0;
  const filtering = filter && {
    FilterExpression: filter.expression,
    ExpressionAttributeNames: filter.names,
    ExpressionAttributeValues: filter.values,
  };
  for await (const item of newestFirst(index, values, filtering)) {
    if (total >= skip && items.length < req.per_page) items.push(item);
    total++;
  }
  return { items, pagination: pageWindow(total, req).pagination };
}
