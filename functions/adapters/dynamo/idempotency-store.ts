/**
 * Idempotency records (decision 16), one per organization and Idempotency-Key. A request
 * claims its key before doing any work (a conditional put of an IN_PROGRESS record), so
 * of any number of concurrent requests with one key exactly one does the work; the
 * claim is completed with the response, kept 24 hours, or released when the work
 * failed. A claim whose holder died is taken over once its lease has run out.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { idempotencyKey } from '../../../contract/table/entities.js';
import { ddb, tableName } from './client.js';

export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
/** Longer than any HTTP function may run (API Gateway gives up after 29 s). */
export const CLAIM_LEASE_SECONDS = 60;

export interface StoredResponse {
  status: number;
  /** The answer's data; for an answer that shows a secret, without it, and the whole answer `sealed` (core/secret-sealer.ts, purpose `replay`). */
  data?: unknown;
  sealed?: string;
  /** For a sealed answer: the key whose request made it, the only one a replay shows the secret to. */
  key_id?: string;
  headers: Record<string, string>;
}

export interface IdempotencyClaim {
  orgId: string;
  key: string;
  /** What the request was (method, path, body): the same key with another request is refused. */
  fingerprint: string;
  /** This claim's own id: only its holder may complete or release it. */
  claimId: string;
}

export type ExistingRecord =
  | { state: 'COMPLETED'; fingerprint: string; response: StoredResponse }
  | { state: 'IN_PROGRESS'; fingerprint: string };

const epochSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** The live record for a key, if any. */
export async function findIdempotencyRecord(orgId: string, key: string, now: Date): Promise<ExistingRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: idempotencyKey(orgId, key), ConsistentRead: true }));
  if (!Item) return undefined;
  const nowSeconds = epochSeconds(now);
  if (Number(Item.ttl) <= nowSeconds) return undefined;
  const fingerprint = String(Item.fingerprint);
  if (Item.state === 'COMPLETED') return { state: 'COMPLETED', fingerprint, response: Item.response as StoredResponse };
  return Number(Item.lease_until) > nowSeconds ? { state: 'IN_PROGRESS', fingerprint } : undefined;
}

/** Claims the key for this request; false when a live record (completed or held) exists. */
export async function claimIdempotencyKey(claim: IdempotencyClaim, now: Date): Promise<boolean> {
  const nowSeconds = epochSeconds(now);
  try {
    await ddb.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...idempotencyKey(claim.orgId, claim.key),
          state: 'IN_PROGRESS',
          fingerprint: claim.fingerprint,
          claim_id: claim.claimId,
          lease_until: nowSeconds + CLAIM_LEASE_SECONDS,
          created_at: now.toISOString(),
          ttl: nowSeconds + IDEMPOTENCY_TTL_SECONDS,
        },
        // Free, expired, or held by a claim whose lease has run out.
        ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now OR (#state = :held AND lease_until <= :now)',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#state': 'state' },
        ExpressionAttributeValues: { ':now': nowSeconds, ':held': 'IN_PROGRESS' },
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** Stores the response of the claimed request, for 24 hours from now. */
export async function completeIdempotencyKey(claim: IdempotencyClaim, response: StoredResponse, now: Date): Promise<void> {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: idempotencyKey(claim.orgId, claim.key),
      UpdateExpression: 'SET #state = :done, #response = :response, #ttl = :ttl REMOVE lease_until',
      ConditionExpression: 'claim_id = :mine',
      ExpressionAttributeNames: { '#state': 'state', '#response': 'response', '#ttl': 'ttl' },
      ExpressionAttributeValues: {
        ':done': 'COMPLETED',
        ':response': response,
        ':ttl': epochSeconds(now) + IDEMPOTENCY_TTL_SECONDS,
        ':mine': claim.claimId,
      },
    }),
  );
}

/** Gives the key back after the work failed, so a retry with it tries again. */
export async function releaseIdempotencyKey(claim: IdempotencyClaim): Promise<void> {
  try {
    await ddb.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: idempotencyKey(claim.orgId, claim.key),
        ConditionExpression: 'claim_id = :mine',
        ExpressionAttributeValues: { ':mine': claim.claimId },
      }),
    );
  } catch (e) {
    // Taken over after the lease ran out: it is no longer this request's to release.
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}
