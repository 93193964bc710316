/** API key items: addressed by the key's hash (the request path), listed by org, found by id. */

import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../../core/api-keys.js';
import { ddb, tableName } from './client.js';
import { apiKey, apiKeyItem, apiKeyKey, orgKey } from './entities.js';

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
  };
}

/** Stores a key, creating its organization if it is new (one transaction). */
export async function saveKey(record: ApiKeyRecord): Promise<void> {
  await ddb.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: orgKey(record.org_id),
            UpdateExpression: 'SET org_id = :org, created_at = if_not_exists(created_at, :now)',
            ExpressionAttributeValues: { ':org': record.org_id, ':now': record.created_at },
          },
        },
        newKeyPut(record),
      ],
    }),
  );
}

function newKeyPut(record: ApiKeyRecord) {
  return {
    Put: {
      TableName: tableName(),
      Item: apiKeyItem(record),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * A rotation in one transaction: the new key is stored and the old key's expiry moved,
 * only if the old key is still as it was read (not revoked, its expiry unchanged), so
 * a rotation racing a revocation or another rotation of the same key fails instead of
 * undoing it. Returns false when the old key changed meanwhile.
 */
export async function saveRotation(next: ApiKeyRecord, old: ApiKeyRecord, oldExpiresAt: string): Promise<boolean> {
  const absent = (name: string) => `(attribute_not_exists(${name}) OR attribute_type(${name}, :null))`;
  const unchangedExpiry = old.expires_at === null ? absent('expires_at') : 'expires_at = :was';
  try {
    await ddb.send(
      new TransactWriteCommand({
        TransactItems: [
          newKeyPut(next),
          {
            Update: {
              TableName: tableName(),
              Key: apiKeyKey(old.hash),
              UpdateExpression: 'SET expires_at = :exp',
              ConditionExpression: `attribute_exists(pk) AND ${absent('revoked_at')} AND ${unchangedExpiry}`,
              ExpressionAttributeValues: {
                ':exp': oldExpiresAt,
                ':null': 'NULL',
                ...(old.expires_at === null ? {} : { ':was': old.expires_at }),
              },
            },
          },
        ],
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof TransactionCanceledException && e.CancellationReasons?.some((r) => r.Code === 'ConditionalCheckFailed')) return false;
    throw e;
  }
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

export async function listKeys(orgId: string): Promise<ApiKeyRecord[]> {
  const byOrg = apiKey.indexes.keysByOrg;
  const out: ApiKeyRecord[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: byOrg.physical,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': byOrg.pkAttr },
        ExpressionAttributeValues: { ':pk': byOrg.pk.build({ org_id: orgId }) },
        ExclusiveStartKey: start,
      }),
    );
    out.push(...(page.Items ?? []).map(toKeyRecord));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/**
 * Revocation is permanent: the first revocation time is kept. Returns the revoked record.
 * Keys are saved with `revoked_at` as a NULL attribute, which `if_not_exists` treats as
 * present, so the condition accepts an absent or NULL value and an earlier revocation is
 * read back instead of overwritten.
 */
export async function revokeKey(record: ApiKeyRecord, now: Date): Promise<ApiKeyRecord> {
  try {
    const { Attributes } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiKeyKey(record.hash),
        UpdateExpression: 'SET revoked_at = :now',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(revoked_at) OR attribute_type(revoked_at, :null))',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':null': 'NULL' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return toKeyRecord(Attributes ?? {});
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
    const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: apiKeyKey(record.hash), ConsistentRead: true }));
    if (!Item) throw new Error(`API key ${record.id} no longer exists`);
    return toKeyRecord(Item);
  }
}
