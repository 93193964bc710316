/**
 * The delivery queue → one signed POST per message (SQS event shape). A message whose
 * attempt fails is not an error here: the attempt is recorded and the next one queued.
 * Only an unexpected fault reports the message as failed, alone, so it comes back. Each
 * attempt is counted by how it ended, and a delivered one's latency from its event
 * written (contract/metric-catalogue.ts). The messages of a batch are delivered at once, so
 * their lines name their own event rather than share a correlation id.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { deliverOnce } from '../app/webhook-deliveries.js';
import type { DeliveryMessage } from '../core/delivery-queue.js';
import { logger } from '../lib/logger.js';
import { emit } from '../lib/metrics.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      try {
        const attempted = await deliverOnce(JSON.parse(record.body) as DeliveryMessage);
        if (!attempted) return;
        emit('webhookDeliveries', { outcome: attempted.outcome }, 1);
        if (attempted.latencyMs !== undefined) emit('webhookDeliveryLatency', {}, attempted.latencyMs);
      } catch (e) {
        logger.error('could not deliver a webhook message', { error: e as Error, message_id: record.messageId });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures };
});
