/**
 * The delivery queue → one signed POST per message (SQS event shape). A message whose
 * attempt fails is not an error here: the attempt is recorded and the next one queued.
 * Only an unexpected fault reports the message as failed, alone, so it comes back.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverOnce } from '../app/webhook-deliveries.js';
import type { DeliveryMessage } from '../core/delivery-queue.js';
import { logger } from '../lib/logger.js';

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        await deliverOnce(JSON.parse(record.body) as DeliveryMessage);
      } catch (e) {
        logger.error('could not deliver a webhook message', { error: e as Error, message_id: record.messageId });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures };
}
