/**
 * The dashboard API's rate limits (decision 232): a user's requests per clock hour and
 * minute, the limits of an API key (decision 32), counted in one conditional UpdateItem on
 * the user's item of the hour, which expires an hour after it ends. DynamoDB applies the
 * check and the increments as one step, so concurrent requests never exceed a limit.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { userMinuteAttr as minuteAttr } from '../../../contract/table/attributes.js';
import { userRateKey } from '../../../contract/table/entities.js';
import { type Limits, type Usage, windowsAt } from '../../core/rate-limits.js';
import { ddb, tableName } from './client.js';

/** Counts the user's request unless a window is full; the usage, this request included when admitted. */
export async function admitUserRequest(userId: string, limits: Limits, now: Date): Promise<{ admitted: boolean; usage: Usage }> {
  const w = windowsAt(now);
  const minute = minuteAttr(w.minuteOfHour);
  try {
    const { Attributes = {} } = await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: userRateKey(userId, w.hourStart),
        UpdateExpression: 'ADD n :one, #m :one SET #ttl = :ttl',
        ConditionExpression: '(attribute_not_exists(n) OR n < :perHour) AND (attribute_not_exists(#m) OR #m < :perMinute)',
        ExpressionAttributeNames: { '#m': minute, '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':one': 1, ':ttl': w.nextHour + 3600, ':perHour': limits.perHour, ':perMinute': limits.perMinute },
        ReturnValues: 'UPDATED_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { admitted: true, usage: { hour: Number(Attributes.n ?? 1), minute: Number(Attributes[minute] ?? 1) } };
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
    const item = e.Item ? (unmarshall(e.Item) as Record<string, unknown>) : {};
    return { admitted: false, usage: { hour: Number(item.n ?? 0), minute: Number(item[minute] ?? 0) } };
  }
}
