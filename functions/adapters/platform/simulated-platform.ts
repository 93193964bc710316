/**
 * The SIMULATED hosting platform: no real resources are created. A job takes
 * `phaseDelayMs` (PHASE_DELAY_MS) from its start, and `simulatedFailure`
 * (SIMULATED_FAILURE=<phase>) makes that phase's job fail; `<phase>:transient` makes it
 * fail transiently, which the workflow retries with backoff and then gives up on.
 *
 * Each job writes a few lines of log, as a real platform's would, spread over its
 * duration (decision 45); the cursor is the count of lines handed out.
 *
 * Jobs live in the table (`JOB#<operation>#<phase>`), like a real platform's own state:
 * a job started before a restart of the local stack is found, and finishes, after it.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { simulatedJobKey } from '../../../contract/table/entities.js';
import type {
  HostingPlatform,
  JobHandle,
  JobStatus,
  LogRequest,
  PhaseJob,
  PlatformLog,
  PlatformLogLine,
  RestoreJob,
} from '../../core/platform.js';
import { ddb, tableName } from '../dynamo/client.js';
import { simulatedMonitoring } from './simulated-monitoring.js';

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
    ...simulatedMonitoring(now),
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

    async check(handle, log): Promise<JobStatus> {
      const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: keyOf(handle), ConsistentRead: true }));
      if (!Item) return { state: 'failed', transient: false, message: 'The platform has no record of this job.' };
      if (Item.state === 'canceled') return { state: 'failed', transient: false, message: 'The job was canceled.' };
      const endsAt = Number(Item.ends_at);
      const withLog = (status: JobStatus): JobStatus =>
        log ? { ...status, log: simulatedLog(String(Item.phase), String(Item.outcome), endsAt, phaseDelayMs, now(), log) } : status;
      const left = endsAt - now();
      if (left > 0) return withLog({ state: 'running', nextCheckSeconds: Math.ceil(left / 1000) });
      if (Item.outcome === 'succeeded') return withLog({ state: 'succeeded' });
      const message = `Simulated failure in phase ${Item.phase} (SIMULATED_FAILURE=${simulatedFailure}).`;
      return withLog({ state: 'failed', transient: Item.outcome === 'transient', message });
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

/** What each phase's job logs, in order; the last line, at its end, says how long it took (`{s}`). */
const PHASE_LOG: Record<string, readonly string[]> = {
  provisioning_db: [
    'creating database instance db.t4g.small',
    'waiting for the database to accept connections',
    'database available after {s} s',
  ],
  provisioning_infrastructure: [
    'creating load balancer and target group',
    'starting 2 application containers',
    'health checks passing after {s} s',
  ],
  destroying_infrastructure: [
    'draining and stopping application containers',
    'deleting load balancer',
    'infrastructure deleted after {s} s',
  ],
  destroying_db: ['taking a final database snapshot', 'deleting database instance', 'database deleted after {s} s'],
  syncing_dags: ['fetching the DAG bundle', 'DAGs synchronised after {s} s'],
  provisioning_user: ['creating the application user', 'user provisioned after {s} s'],
  applying_config: ['rendering the configuration of the new revision', 'configuration applied after {s} s'],
  restarting_services: ['rolling restart of the application containers', 'services healthy after {s} s'],
};

/**
 * The job's lines due by `at`, after the cursor: line i of n is due at (i + 1) / n of the
 * job's duration. A failing job's last line is a warning instead of its success.
 */
function simulatedLog(phase: string, outcome: string, endsAt: number, delayMs: number, at: number, req: LogRequest): PlatformLog {
  const script = PHASE_LOG[phase] ?? [`${phase} done after {s} s`];
  const started = endsAt - delayMs;
  const all: PlatformLogLine[] = script.map((text, i) => {
    const last = i === script.length - 1;
    const failing = last && outcome !== 'succeeded';
    return {
      level: failing ? 'warning' : 'info',
      message: failing ? `${phase} did not complete` : text.replace('{s}', (delayMs / 1000).toFixed(1)),
      time: new Date(started + Math.round((delayMs * (i + 1)) / script.length)).toISOString(),
    };
  });
  const due = all.filter((l) => Date.parse(l.time ?? '') <= at);
  const from = Number(req.after ?? 0);
  const lines = due.slice(from, from + req.limit);
  return { lines, cursor: String(from + lines.length) };
}
