/**
 * What every phase module of the ECS driver shares: the settings and clients, the job
 * handle, the driver's job records (one table item per phase, `JOB#<operation>#<phase>`,
 * the item the simulated driver keeps too) and the classification of AWS errors.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { simulatedJobKey } from '../../../../contract/table/entities.js';
import type { AppType } from '../../../../contract/vocabulary.js';
import { type JobHandle, TransientPlatformError, type WorkPhase } from '../../../core/platform.js';
import { isTransientAwsError } from '../../../core/platform-ecs.js';
import { ddb, tableName } from '../../dynamo/client.js';
import type { EcsClients } from './clients.js';
import type { EcsSettings } from './settings.js';

export interface EcsContext {
  settings: EcsSettings;
  aws: EcsClients;
  /** APP_DOMAIN: a deployment's url host is `<app>.<id>.<domain>` (decision 9). */
  appDomain: string;
  now: () => number;
}

/** What a handle names: the job's operation, phase and deployment (records also of a restore and a cancel). */
export interface EcsJob {
  v: 1;
  org: string;
  op: string;
  phase: WorkPhase | 'restore' | 'cancel';
  dep: string;
  app: AppType;
}

export const handleOf = (job: EcsJob): JobHandle => JSON.stringify(job);
export const jobOf = (handle: JobHandle): EcsJob => JSON.parse(handle) as EcsJob;

/** Job records are kept a week after their phase starts, then DynamoDB's TTL removes them. */
const RECORD_TTL_SECONDS = 7 * 24 * 3600;

/** The driver's state of one job: ARNs and revisions it made, never a secret value. */
export type JobRecord = Record<string, string | number | undefined>;

export async function readRecord(job: Pick<EcsJob, 'org' | 'op'>, phase: string): Promise<JobRecord | undefined> {
  const key = simulatedJobKey(job.org, job.op, phase);
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item?.record as JobRecord | undefined;
}

export async function writeRecord(job: EcsJob, record: JobRecord, now: number): Promise<void> {
  await ddb.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...simulatedJobKey(job.org, job.op, job.phase),
        phase: job.phase,
        deployment_id: job.dep,
        record,
        ttl: Math.floor(now / 1000) + RECORD_TTL_SECONDS,
      },
    }),
  );
}

interface AwsError {
  name?: string;
  $metadata?: { httpStatusCode?: number };
}

export const errorName = (e: unknown): string => (e as AwsError)?.name ?? '';

/**
 * An AWS call: a throttle, a 5xx or a busy resource becomes a TransientPlatformError (the
 * workflow asks again with backoff); anything else is a driver bug and throws as it is
 * (the customer sees the generic internal error, never an ARN).
 */
export async function aws<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isTransientAwsError(errorName(e), (e as AwsError)?.$metadata?.httpStatusCode))
      throw new TransientPlatformError(`The platform was busy while it ${what}; it will be tried again.`);
    throw e;
  }
}

/** An AWS call whose "not there" answer (named in `absent`) means there is nothing to do. */
export async function unlessAbsent<T>(what: string, absent: readonly string[], call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await aws(what, call);
  } catch (e) {
    if (absent.includes(errorName(e))) return undefined;
    throw e;
  }
}
