/**
 * The SIMULATED hosting platform: no real resources are created. A job takes
 * `phaseDelayMs` (PHASE_DELAY_MS) from its start, and `simulatedFailure`
 * (SIMULATED_FAILURE=<phase>) makes that phase's job fail; `<phase>:transient` makes it
 * fail transiently, which the workflow retries with backoff and then gives up on.
 *
 * Jobs live in the table (`JOB#<operation>#<phase>`), like a real platform's own state:
 * a job started before a restart of the local stack is found, and finishes, after it.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { HostingPlatform, JobHandle, JobStatus, PhaseJob, RestoreJob } from '../../core/platform.js';
import { ddb, tableName } from '../dynamo/client.js';
import { simulatedJobKey } from '../dynamo/entities.js';

export interface SimulationSettings {
  phaseDelayMs: number;
  simulatedFailure: string;
}

interface Handle {
  orgId: string;
  operationId: string;
  phase: string;
}

const handleOf = (job: Handle): JobHandle => JSON.stringify({ orgId: job.orgId, operationId: job.operationId, phase: job.phase });
const keyOf = (handle: JobHandle) => {
  const h = JSON.parse(handle) as Handle;
  return simulatedJobKey(h.orgId, h.operationId, h.phase);
};

/** Simulated jobs are kept a week after they start, then DynamoDB's TTL removes them. */
const JOB_TTL_SECONDS = 7 * 24 * 3600;

export function simulatedPlatform({ phaseDelayMs, simulatedFailure }: SimulationSettings, now = () => Date.now()): HostingPlatform {
  const [failPhase, kind] = simulatedFailure.split(':');
  return {
    async start(job: PhaseJob) {
      const handle = handleOf({ orgId: job.target.orgId, operationId: job.operationId, phase: job.phase });
      const started = now();
      try {
        await ddb.send(
          new PutCommand({
            TableName: tableName(),
            Item: {
              ...keyOf(handle),
              phase: job.phase,
              state: 'running',
              ends_at: started + phaseDelayMs,
              outcome: failPhase === job.phase ? (kind === 'transient' ? 'transient' : 'failed') : 'succeeded',
              ttl: Math.floor(started / 1000) + JOB_TTL_SECONDS,
            },
            // Starting the same job again (a retried step, a resumed workflow) keeps the first.
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (e) {
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
      }
      return handle;
    },

    async check(handle): Promise<JobStatus> {
      const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: keyOf(handle), ConsistentRead: true }));
      if (!Item) return { state: 'failed', transient: false, message: 'The platform has no record of this job.' };
      if (Item.state === 'canceled') return { state: 'failed', transient: false, message: 'The job was canceled.' };
      const left = Number(Item.ends_at) - now();
      if (left > 0) return { state: 'running', nextCheckSeconds: Math.ceil(left / 1000) };
      if (Item.outcome === 'succeeded') return { state: 'succeeded' };
      const message = `Simulated failure in phase ${Item.phase} (SIMULATED_FAILURE=${simulatedFailure}).`;
      return { state: 'failed', transient: Item.outcome === 'transient', message };
    },

    async restore(job: RestoreJob) {
      // Nothing runs here; the restore is recorded as a job of its own, as a real platform would track it.
      await ddb.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...simulatedJobKey(job.orgId, job.operationId, 'restore'),
            phase: 'restore',
            state: 'succeeded',
            deployment_id: job.deploymentId,
            ttl: Math.floor(now() / 1000) + JOB_TTL_SECONDS,
          },
        }),
      );
    },

    async cancel(handle) {
      try {
        await ddb.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: keyOf(handle),
            UpdateExpression: 'SET #state = :canceled',
            ConditionExpression: '#state = :running AND ends_at > :now',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':canceled': 'canceled', ':running': 'running', ':now': now() },
          }),
        );
      } catch (e) {
        // Finished or already canceled: nothing left to stop.
        if (!(e instanceof ConditionalCheckFailedException)) throw e;
      }
    },
  };
}
