/**
 * DynamoDB Local's answer to a lost transaction race, made DynamoDB's (decision 330).
 * When transactions touch one item at once, DynamoDB cancels the losers with
 * `TransactionConflict`; DynamoDB Local makes them wait on a lock and, on a busy machine,
 * gives up with a 500 ("... too long waiting for a lock. This request will succeed in
 * actual DynamoDB API") that outlives the SDK's retries. Every process that runs handlers
 * locally plugs this in with its stand-ins, so the code above the client sees what AWS
 * would send and retries it as it retries any conflict.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { ddb } from '../functions/adapters/dynamo/client.js';

type Client = Pick<typeof ddb, 'middlewareStack'>;

const NAME = 'dynamodbLocalLockTimeoutAsConflict';
const installed = new WeakSet<object>();

const lockTimeout = (e: unknown): e is Error & { $metadata?: object } =>
  e instanceof Error && e.name === 'InternalServerError' && /waiting for a lock/.test(e.message);

export function lockTimeoutsAsConflicts(client: Client): void {
  if (installed.has(client.middlewareStack)) return;
  installed.add(client.middlewareStack);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      try {
        return await next(args);
      } catch (e) {
        if (!lockTimeout(e) || !/^TransactWrite/.test(String(context.commandName))) throw e;
        throw new TransactionCanceledException({
          message: `Transaction cancelled: ${e.message}`,
          $metadata: e.$metadata ?? {},
          CancellationReasons: [{ Code: 'TransactionConflict', Message: e.message }],
        });
      }
    },
    // Outside the retry loop: the SDK's own retries of the 500 come first, as they would.
    { step: 'initialize', name: NAME },
  );
}
