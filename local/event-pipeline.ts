/**
 * What AWS runs around the webhook handlers, done locally (decision 38): the table's
 * stream (DynamoDB Local has the Streams API) feeds the dispatcher, and the delivery
 * queue (kept in the table) feeds the deliverer, each polled a few times a second so a
 * change reaches its receivers within the 5 seconds the contract allows. Where the
 * stream was read is remembered under DATA_DIR, so a restart neither loses nor repeats
 * much (delivery is at least once).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  type GetRecordsCommandOutput,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { handler as deliver } from '../functions/events/deliver-webhooks.js';
import { handler as dispatch } from '../functions/events/dispatch-events.js';
import { logger } from '../functions/lib/logger.js';
import { localCredentials } from './dynamodb-local.js';
import { invokeAs } from './gateway.js';
import { claimDue, deleteMessage, type QueuedMessage } from './table-queue.js';

const POLL_MS = 250;
const SHARD_REFRESH_MS = 5000;
/** At most this many deliveries at once (claims wait while the limit is reached). */
const MAX_IN_FLIGHT = 50;

export interface EventPipeline {
  stop(): Promise<void>;
}

interface Checkpoints {
  [shardId: string]: string;
}

export function startEventPipeline(opts: { endpoint: string; tableName: string; dataDir: string | null }): EventPipeline {
  const local = { endpoint: opts.endpoint, region: 'us-east-1', credentials: localCredentials() };
  const dynamo = new DynamoDBClient(local);
  const streams = new DynamoDBStreamsClient(local);
  const file = opts.dataDir && path.join(opts.dataDir, 'stream-checkpoints.json');
  const checkpoints: Checkpoints = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Checkpoints) : {};
  const iterators = new Map<string, string | undefined>();
  let stopped = false;

  /** The stream and its shards, described again every few seconds rather than on every poll (new shards appear rarely). */
  let known = { arn: '', shards: [] as string[], at: 0 };
  async function shardsOf(): Promise<{ arn: string; shards: string[] }> {
    if (known.arn && Date.now() - known.at < SHARD_REFRESH_MS) return known;
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: opts.tableName }));
    const arn = Table?.LatestStreamArn;
    if (!arn) return { arn: '', shards: [] };
    const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: arn }));
    known = { arn, shards: (StreamDescription?.Shards ?? []).map((s) => s.ShardId!).filter(Boolean), at: Date.now() };
    return known;
  }

  async function readStream(): Promise<void> {
    const { arn, shards } = await shardsOf();
    for (const shard of shards) {
      if (!iterators.has(shard)) {
        const after = checkpoints[shard];
        const { ShardIterator } = await streams.send(
          new GetShardIteratorCommand({
            StreamArn: arn,
            ShardId: shard,
            ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
          }),
        );
        iterators.set(shard, ShardIterator);
      }
      const iterator = iterators.get(shard);
      if (!iterator) continue; // a closed shard, read to its end
      const { Records = [], NextShardIterator } = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
      iterators.set(shard, NextShardIterator);
      if (!Records.length) continue;
      // The Streams API's records are what Lambda passes on, but for one thing: the SDK
      // reads an empty map (`{"M": {}}`, e.g. a configuration without env variables) as
      // `{}`, which no AttributeValue is; Lambda's event keeps `{"M": {}}`.
      const event = { Records: Records.map(asLambdaRecord) } as unknown as DynamoDBStreamEvent;
      const { batchItemFailures } = await invokeAs('events', 'dispatch-events', (context) => dispatch(event, context));
      // A failed record is read again from there next time, as Lambda's event source mapping would.
      const failedAt = batchItemFailures[0]?.itemIdentifier;
      const done = failedAt ? Records.filter((r) => BigInt(r.dynamodb?.SequenceNumber ?? 0) < BigInt(failedAt)) : Records;
      const last = done.at(-1)?.dynamodb?.SequenceNumber;
      if (last) checkpoints[shard] = last;
      if (failedAt) iterators.delete(shard);
      if (file) {
        // Written aside, then renamed over: a kill mid-write must not leave a file the next start cannot read.
        writeFileSync(`${file}.tmp`, JSON.stringify(checkpoints), { mode: 0o600 });
        renameSync(`${file}.tmp`, file);
      }
    }
  }

  /**
   * Deliveries under way. Each message is its own deliverer call and nobody waits for a
   * batch, so a receiver that holds a request for the full 10 s holds only its own
   * delivery, never the next claim (on AWS, SQS scales out the deliverer the same way).
   */
  const inFlight = new Set<Promise<void>>();
  async function deliverOne(d: QueuedMessage): Promise<void> {
    try {
      const event = { Records: [{ messageId: d.receipt, body: JSON.stringify(d.message) }] } as unknown as SQSEvent;
      const { batchItemFailures } = await invokeAs('events', 'deliver-webhooks', (context) => deliver(event, context));
      // A handled message goes; a failed one stays claimed and comes back when its claim runs out.
      if (!batchItemFailures.length) await deleteMessage(d.receipt);
    } catch (e) {
      logger.error('local delivery failed; the message comes back', { error: e as Error });
    }
  }

  async function drainQueue(): Promise<void> {
    const room = MAX_IN_FLIGHT - inFlight.size;
    if (room <= 0) return;
    for (const d of await claimDue(Math.min(10, room))) {
      const delivery: Promise<void> = deliverOne(d).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
  }

  const loop = (name: string, step: () => Promise<void>) =>
    (async () => {
      while (!stopped) {
        try {
          await step();
        } catch (e) {
          logger.error(`local ${name} failed; retrying`, { error: e as Error });
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    })();

  const running = [loop('stream reader', readStream), loop('delivery queue', drainQueue)];
  return {
    async stop() {
      stopped = true;
      await Promise.all(running);
      await Promise.all(inFlight);
      dynamo.destroy();
      streams.destroy();
    },
  };
}

type StreamRecord = NonNullable<GetRecordsCommandOutput['Records']>[number];
type Image = Record<string, Record<string, unknown>>;

/** An attribute value as Lambda shows it: `{}` (an empty map, as the SDK read it) back to `{"M": {}}`. */
function asLambdaValue(value: Record<string, unknown>): Record<string, unknown> {
  if (Object.keys(value).length === 0) return { M: {} };
  if (value.M) return { M: asLambdaImage(value.M as Image) };
  if (Array.isArray(value.L)) return { L: value.L.map((v) => asLambdaValue(v as Record<string, unknown>)) };
  return value;
}

const asLambdaImage = (image: Image): Image => Object.fromEntries(Object.entries(image).map(([k, v]) => [k, asLambdaValue(v)]));

/** The record as Lambda's event carries it (JSON-shaped: its images are plain objects). */
function asLambdaRecord(record: StreamRecord): unknown {
  const images = record.dynamodb;
  if (!images) return record;
  const { NewImage, OldImage } = images as { NewImage?: Image; OldImage?: Image };
  return {
    ...record,
    dynamodb: {
      ...images,
      ...(NewImage ? { NewImage: asLambdaImage(NewImage) } : {}),
      ...(OldImage ? { OldImage: asLambdaImage(OldImage) } : {}),
    },
  };
}
