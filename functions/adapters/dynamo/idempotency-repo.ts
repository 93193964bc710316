/**
 * Idempotency records (decision 16): the first response to a POST with an
 * Idempotency-Key, kept 24 hours. The record is written in the same transaction as
 * the work it stands for (see `idempotencyPut`), so concurrent requests with one key
 * do the work exactly once.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from './client.js';
import { idempotencyKey } from './keys.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

export interface StoredResponse {
  status: number;
  data: unknown;
  headers: Record<string, string>;
}

export interface IdempotencyRecord {
  fingerprint: string;
  response: StoredResponse;
}

export interface IdempotencyClaim {
  orgId: string;
  key: string;
  fingerprint: string;
}

export async function findIdempotencyRecord(orgId: string, key: string, now: Date): Promise<IdempotencyRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: idempotencyKey(orgId, key), ConsistentRead: true }));
  if (!Item || Number(Item.ttl) <= now.getTime() / 1000) return undefined;
  return { fingerprint: String(Item.fingerprint), response: Item.response as StoredResponse };
}

/** The transaction item that stores the response; it fails if a live record exists. */
export function idempotencyPut(claim: IdempotencyClaim, response: StoredResponse, now: Date) {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...idempotencyKey(claim.orgId, claim.key),
        fingerprint: claim.fingerprint,
        response,
        created_at: now.toISOString(),
        ttl: nowSeconds + IDEMPOTENCY_TTL_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':now': nowSeconds },
    },
  };
}

/** Forgets a claim whose work could not be started, so a retry with the same key tries again. */
export async function forgetIdempotencyRecord(claim: IdempotencyClaim): Promise<void> {
  await ddb.send(new DeleteCommand({ TableName: tableName(), Key: idempotencyKey(claim.orgId, claim.key) }));
}

/**
 * Stores a success for POSTs whose work is not a single transaction (cancel). Where
 * the work's own transaction stored it already, the condition keeps that one.
 */
export async function rememberResponse(claim: IdempotencyClaim, response: StoredResponse, now: Date): Promise<void> {
  try {
    await ddb.send(new PutCommand(idempotencyPut(claim, response, now).Put));
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
