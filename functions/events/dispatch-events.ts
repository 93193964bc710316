/**
 * The table's stream → one delivery per subscribed webhook. On AWS the event source
 * mapping filters the stream to event items (sk begins with EVT#); the check here keeps
 * the local poller, which sees every record, to the same ones. A record that fails is
 * reported alone, so the rest of the batch is not delivered twice. Records are taken one
 * after another, so each one's event id is the correlation id of the lines it causes.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { toEvent } from '../adapters/dynamo/event-reads.js';
import { dispatchEvent } from '../app/webhook-dispatch.js';
import { logger } from '../lib/logger.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const batchItemFailures: DynamoDBBatchResponse['batchItemFailures'] = [];
  for (const record of stream.Records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image || !image.sk?.S?.startsWith('EVT#')) continue;
    try {
      const item = unmarshall(image as Record<string, AttributeValue>);
      const event = toEvent(item);
      logger.setCorrelationId(event.id);
      await dispatchEvent(String(item.pk).slice('ORG#'.length), event);
    } catch (e) {
      logger.error('could not dispatch an event', { error: e as Error, sequence_number: record.dynamodb?.SequenceNumber });
      batchItemFailures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
    }
  }
  return { batchItemFailures };
});
