/**
 * Failed authentications per client address and clock window: one conditional-free
 * ADD on the address's item, which expires with its window. Written only when a request
 * was refused as INVALID_API_KEY, never for an accepted key.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { authFailureKey } from '../../../contract/table/entities.js';
import { ddb, tableName } from './client.js';

/** Counts one failure of the address in the window starting at `windowStart`; returns the window's count so far. */
export async function countAuthFailure(address: string, windowStart: number, windowEnd: number): Promise<number> {
  const { Attributes } = await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: authFailureKey(address, windowStart),
      UpdateExpression: 'ADD n :one SET #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      // Kept a window past its end, so a late request of the window still finds it.
      ExpressionAttributeValues: { ':one': 1, ':ttl': windowEnd + (windowEnd - windowStart) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(Attributes?.n ?? 1);
}
