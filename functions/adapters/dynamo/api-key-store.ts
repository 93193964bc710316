/** API key items: addressed by the key's hash (the request path), listed by org, found by id. */

import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { KEY_COUNT } from '../../../contract/table/attributes.js';
import { apiKey, apiKeyKey, orgKey } from '../../../contract/table/entities.js';
import type { ApiKeyRecord } from '../../core/api-keys.js';
import { ddb, tableName } from './client.js';
import { apiKeyItem } from './items.js';
import { requestRetries, type TransactItem, TransactionRefused, transact, withRetries } from './transact.js';

const nullable = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function toKeyRecord(item: Record<string, unknown>): ApiKeyRecord {
  return {
    id: String(item.id),
    org_id: String(item.org_id),
    name: String(item.name),
    scopes: (item.scopes ?? []) as ApiKeyRecord['scopes'],
    hash: String(item.hash),
    hint: String(item.hint),
    created_at: String(item.created_at),
    expires_at: nullable(item.expires_at),
    revoked_at: nullable(item.revoked_at),
    last_used_at: nullable(item.last_used_at),
    ...(typeof item.rotated_to === 'string' ? { rotated_to: item.rotated_to } : {}),
  };
}

/**
 * An organization holds a limited number of keys, counted on its item (`key_count`) in
 * the same transaction as each key's write, so the limit holds under concurrency without
 * a read. A key that holds a place is marked `counted`; it gives the place back, once,
 * when it is revoked or rotated away. Keys stored before the count carry no mark: they
 * hold no place, and their organization's count starts from 0.
 */
const COUNT = KEY_COUNT;
const MARK = 'counted';

const absent = (name: string) => `(attribute_not_exists(${name}) OR attribute_type(${name}, :null))`;

/** One more key for the organization unless it holds `limit` already; creates the organization if it is new. */
function takePlace(orgId: string, limit: number, now: string): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: orgKey(orgId),
      UpdateExpression: `SET org_id = :org, created_at = if_not_exists(created_at, :now) ADD ${COUNT} :one`,
      ConditionExpression: `attribute_not_exists(${COUNT}) OR ${COUNT} < :limit`,
      ExpressionAttributeValues: { ':org': orgId, ':now': now, ':one': 1, ':limit': limit },
    },
  };
}

const givePlace = (orgId: string): TransactItem => ({
  Update: {
    TableName: tableName(),
    Key: orgKey(orgId),
    UpdateExpression: `ADD ${COUNT} :minus`,
    ExpressionAttributeValues: { ':minus': -1 },
  },
});

function newKeyPut(record: ApiKeyRecord): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...apiKeyItem(record), [MARK]: true },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Runs a transaction (again after a conflict); the names of the items whose conditions failed, empty when it committed. */
async function attempt(items: Parameters<typeof transact>[0]): Promise<ReadonlySet<string>> {
  try {
    await withRetries(() => transact(items), requestRetries(new Date()));
    return new Set();
  } catch (e) {
    if (e instanceof TransactionRefused && e.failed.size > 0) return e.failed;
    throw e;
  }
}

/** Stores a key unless its organization holds `limit` keys already; false when it does. */
export async function saveKey(record: ApiKeyRecord, limit: number): Promise<boolean> {
  const failed = await attempt({ org: takePlace(record.org_id, limit, record.created_at), key: newKeyPut(record) });
  if (failed.has('key')) throw new Error(`API key ${record.id} already exists`);
  return failed.size === 0;
}

/**
 * A rotation in one transaction: the new key is stored and the old key's expiry moved,
 * only if the old key is still as it was read (not revoked, its expiry unchanged), so
 * a rotation racing a revocation or another rotation of the same key fails instead of
 * undoing it. The new key takes the old one's place; when the old one holds none (rotated
 * already, or stored before the count), the new key takes a place of its own, within
 * `limit`. `changed` when the old key changed meanwhile; `full` when no place was left.
 */
export async function saveRotation(
  next: ApiKeyRecord,
  old: ApiKeyRecord,
  oldExpiresAt: string,
  limit: number,
): Promise<'rotated' | 'changed' | 'full'> {
  const unchangedExpiry = old.expires_at === null ? absent('expires_at') : 'expires_at = :was';
  const moveExpiry = (holdsPlace: boolean): TransactItem => ({
    Update: {
      TableName: tableName(),
      Key: apiKeyKey(old.hash),
      // Decision 229: the old key records its successor, and one that has one is not rotated again.
      UpdateExpression: `SET expires_at = :exp, rotated_to = :next${holdsPlace ? ` REMOVE ${MARK}` : ''}`,
      ConditionExpression: `attribute_exists(pk) AND ${absent('revoked_at')} AND attribute_not_exists(rotated_to) AND ${unchangedExpiry} AND attribute_${holdsPlace ? '' : 'not_'}exists(${MARK})`,
      ExpressionAttributeValues: {
        ':exp': oldExpiresAt,
        ':next': next.id,
        ':null': 'NULL',
        ...(old.expires_at === null ? {} : { ':was': old.expires_at }),
      },
    },
  });
  if ((await attempt({ key: newKeyPut(next), old: moveExpiry(true) })).size === 0) return 'rotated';
  const failed = await attempt({ key: newKeyPut(next), old: moveExpiry(false), org: takePlace(next.org_id, limit, next.created_at) });
  if (failed.size === 0) return 'rotated';
  return failed.has('old') ? 'changed' : 'full';
}

export async function findKeyById(id: string): Promise<ApiKeyRecord | undefined> {
  const byId = apiKey.indexes.keyById;
  const { Items } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: byId.physical,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': byId.pkAttr },
      ExpressionAttributeValues: { ':pk': byId.pk.build({ id }) },
    }),
  );
  return Items?.[0] ? toKeyRecord(Items[0]) : undefined;
}

/** The organization's key items, oldest first: whole, or only the named attributes. */
async function queryOrgKeys(orgId: string, attributes?: readonly string[]): Promise<Record<string, unknown>[]> {
  const byOrg = apiKey.indexes.keysByOrg;
  const out: Record<string, unknown>[] = [];
  const projection = attributes && {
    ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', '),
    names: Object.fromEntries(attributes.map((a, i) => [`#a${i}`, a])),
  };
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: byOrg.physical,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': byOrg.pkAttr, ...projection?.names },
        ExpressionAttributeValues: { ':pk': byOrg.pk.build({ org_id: orgId }) },
        ...(projection ? { ProjectionExpression: projection.ProjectionExpression } : {}),
        ExclusiveStartKey: start,
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

export async function listKeys(orgId: string): Promise<ApiKeyRecord[]> {
  return (await queryOrgKeys(orgId)).map(toKeyRecord);
}

/** Each key's name by its id, revoked keys included, and nothing else of them (decision 141). */
export async function keyNames(orgId: string): Promise<Map<string, string>> {
  return new Map((await queryOrgKeys(orgId, ['id', 'name'])).map((item) => [String(item.id), String(item.name)]));
}

/**
 * Revocation is permanent: the first revocation time is kept. Returns the revoked record.
 * Keys are saved with `revoked_at` as a NULL attribute, which `if_not_exists` treats as
 * present, so the condition accepts an absent or NULL value and an earlier revocation is
 * read back instead of overwritten. A key that holds a place gives it back in the same
 * transaction; one rotated away gave it back already.
 */
export async function revokeKey(record: ApiKeyRecord, now: Date): Promise<ApiKeyRecord> {
  const revoke = (holdsPlace: boolean): TransactItem => ({
    Update: {
      TableName: tableName(),
      Key: apiKeyKey(record.hash),
      UpdateExpression: holdsPlace ? `SET revoked_at = :now REMOVE ${MARK}` : 'SET revoked_at = :now',
      ConditionExpression: `attribute_exists(pk) AND ${absent('revoked_at')}${holdsPlace ? ` AND attribute_exists(${MARK})` : ''}`,
      ExpressionAttributeValues: { ':now': now.toISOString(), ':null': 'NULL' },
    },
  });
  // A key is never marked again once unmarked, so the second write runs only on an unmarked key.
  if ((await attempt({ key: revoke(true), org: givePlace(record.org_id) })).size > 0) await attempt({ key: revoke(false) });
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(record.hash), ConsistentRead: true }));
  if (!Item) throw new Error(`API key ${record.id} no longer exists`);
  return toKeyRecord(Item);
}
