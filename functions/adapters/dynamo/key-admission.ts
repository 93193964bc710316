/**
 * Admitting a request (decisions 28, 32, 40) in one conditional UpdateItem on the key's
 * own item: the key must exist, be neither revoked nor expired, and have room in both
 * rate-limit windows; then the request is counted and `last_used_at` stamped, and the
 * item as it was comes back, so the caller learns the key's record from the same call.
 *
 * The windows live on the key item: `rate_hour` names the clock hour the counters belong
 * to, `rate_n` counts that hour and `rate_mNN` each minute of it. Within an hour a request
 * adds 1 to `rate_n` and its minute; the first request of a new hour starts the counters
 * again and removes the old minutes, so the item never holds more than 60 of them.
 * Which of the two writes to try is guessed from the last hour this process saw the key
 * in; a wrong guess costs one more call, once per key and hour. DynamoDB applies each
 * check and increment as one step, so concurrent requests never exceed a limit.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ALL_MINUTES, minuteAttr } from '../../../contract/table/attributes.js';
import { apiKeyKey } from '../../../contract/table/entities.js';
import { type ApiKeyRecord, keyRefusal } from '../../core/api-keys.js';
import { type Limits, type Usage, windowsAt } from '../../core/rate-limits.js';
import { toKeyRecord } from './api-key-store.js';
import { ddb, tableName } from './client.js';

export type Admission =
  /** No key has this hash. */
  | { outcome: 'unknown' }
  /** Counted: the record as stored before this request, and the usage with it. */
  | { outcome: 'admitted'; record: ApiKeyRecord; usage: Usage }
  /** Revoked or expired: not counted, not stamped (the caller says which). */
  | { outcome: 'unusable'; record: ApiKeyRecord }
  /** A window is full: not counted, but stamped as used (decision 40 counts every request). */
  | { outcome: 'limited'; record: ApiKeyRecord; usage: Usage };

/** The hour each key was last counted in by this process: a guess, never trusted for a decision. */
const lastHour = new Map<string, number>();
const GUESSES_KEPT = 10_000;

const USABLE =
  'attribute_exists(pk) AND (attribute_not_exists(revoked_at) OR attribute_type(revoked_at, :null)) ' +
  'AND (attribute_not_exists(expires_at) OR attribute_type(expires_at, :null) OR expires_at > :now)';

type Item = Record<string, unknown>;
const count = (item: Item, attr: string) => Number(item[attr] ?? 0);

function sameHourWrite(hash: string, limits: Limits, now: Date, hour: number, minute: string) {
  return new UpdateCommand({
    TableName: tableName(),
    Key: apiKeyKey(hash),
    UpdateExpression: 'SET last_used_at = :now ADD rate_n :one, #m :one',
    ConditionExpression: `${USABLE} AND rate_hour = :hour AND rate_n < :perHour AND (attribute_not_exists(#m) OR #m < :perMinute)`,
    ExpressionAttributeNames: { '#m': minute },
    ExpressionAttributeValues: {
      ':now': now.toISOString(),
      ':null': 'NULL',
      ':one': 1,
      ':hour': hour,
      ':perHour': limits.perHour,
      ':perMinute': limits.perMinute,
    },
    ReturnValues: 'ALL_OLD',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

function newHourWrite(hash: string, now: Date, hour: number, minute: string) {
  const stale = ALL_MINUTES.filter((m) => m !== minute);
  return new UpdateCommand({
    TableName: tableName(),
    Key: apiKeyKey(hash),
    UpdateExpression: `SET last_used_at = :now, rate_hour = :hour, rate_n = :one, #m = :one REMOVE ${stale.join(', ')}`,
    ConditionExpression: `${USABLE} AND (attribute_not_exists(rate_hour) OR rate_hour < :hour)`,
    ExpressionAttributeNames: { '#m': minute },
    ExpressionAttributeValues: { ':now': now.toISOString(), ':null': 'NULL', ':one': 1, ':hour': hour },
    ReturnValues: 'ALL_OLD',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  });
}

/** Stamps a refused-by-limit request's use; the old stamp is what the answer reports. */
async function stampUse(hash: string, now: Date): Promise<void> {
  await ddb.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: apiKeyKey(hash),
      UpdateExpression: 'SET last_used_at = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
}

export async function admitRequest(hash: string, limits: Limits, now: Date): Promise<Admission> {
  let w = windowsAt(now);
  let minute = minuteAttr(w.minuteOfHour);
  let sameHour = lastHour.get(hash) === w.hourStart;
  // Each failed attempt learns the item's state, so a third attempt is only needed when
  // another request started the hour between the two: the loop is bounded.
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      const command = sameHour ? sameHourWrite(hash, limits, now, w.hourStart, minute) : newHourWrite(hash, now, w.hourStart, minute);
      const { Attributes: old = {} } = await ddb.send(command);
      remember(hash, w.hourStart);
      const usage = sameHour ? { hour: count(old, 'rate_n') + 1, minute: count(old, minute) + 1 } : { hour: 1, minute: 1 };
      return { outcome: 'admitted', record: toKeyRecord(old), usage };
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      if (!e.Item) return { outcome: 'unknown' };
      const item = unmarshall(e.Item) as Item;
      const record = toKeyRecord(item);
      if (keyRefusal(record, now)) return { outcome: 'unusable', record };
      const itemHour = count(item, 'rate_hour');
      if (itemHour > w.hourStart) {
        // Another function's clock is already in the next hour: count this request there.
        w = windowsAt(new Date(itemHour * 1000));
        minute = minuteAttr(w.minuteOfHour);
        sameHour = true;
      } else if (itemHour === w.hourStart && !sameHour) sameHour = true;
      else if (itemHour < w.hourStart && sameHour) sameHour = false;
      else {
        remember(hash, w.hourStart);
        await stampUse(hash, now);
        return { outcome: 'limited', record, usage: { hour: count(item, 'rate_n'), minute: count(item, minute) } };
      }
    }
  }
  throw new Error('admitRequest: the key item kept changing between attempts');
}

function remember(hash: string, hour: number): void {
  if (lastHour.size >= GUESSES_KEPT) lastHour.clear();
  lastHour.set(hash, hour);
}
