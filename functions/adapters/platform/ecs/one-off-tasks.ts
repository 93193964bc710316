/**
 * One-off tasks: the database migration, a DAG sync, a user's provisioning. Each runs the
 * deployment's job task definition with a command override (never a secret in it: a user's
 * password comes from the container's `secrets`), `startedBy` the operation, and is known
 * by its ARN in the job record. Its log is the awslogs stream of its `job` container, read
 * with CloudWatch Logs' forward token as the cursor.
 */
import { GetLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeTasksCommand, RunTaskCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { type LogRequest, PlatformError, type PlatformLog, TransientPlatformError } from '../../../core/platform.js';
import { isTransientReason, type TaskObservation } from '../../../core/platform-ecs.js';
import { aws, type EcsContext, type EcsJob, unlessAbsent } from './context.js';
import { clientToken, deploymentTags, JOB_CONTAINER, JOB_STREAM_PREFIX, jobFamily, logGroupName } from './names.js';

export interface OneOffTask {
  step: string;
  command: string[];
  environment?: { name: string; value: string }[];
}

/** Starts the task; its ARN. A capacity shortage is transient (the workflow tries again). */
export async function runOneOff(ctx: EcsContext, job: EcsJob, task: OneOffTask): Promise<string> {
  const { settings: s } = ctx;
  const out = await aws('started a task', () =>
    ctx.aws.ecs.send(
      new RunTaskCommand({
        cluster: s.clusterArn,
        taskDefinition: jobFamily(job.app, job.dep),
        launchType: 'FARGATE',
        count: 1,
        startedBy: job.op,
        clientToken: clientToken(job.op, job.phase, task.step),
        networkConfiguration: {
          awsvpcConfiguration: { subnets: s.subnetIds, securityGroups: s.securityGroupIds, assignPublicIp: 'DISABLED' },
        },
        overrides: {
          containerOverrides: [
            { name: JOB_CONTAINER, command: task.command, ...(task.environment ? { environment: task.environment } : {}) },
          ],
        },
        tags: deploymentTags(job.dep, job.org),
        propagateTags: 'TASK_DEFINITION',
      }),
    ),
  );
  const arn = out.tasks?.[0]?.taskArn;
  if (arn) return arn;
  const reason = out.failures?.[0]?.reason ?? 'no task was started';
  if (isTransientReason(reason)) throw new TransientPlatformError(`The platform had no capacity for the task (${reason}).`);
  throw new PlatformError(`The task could not be started: ${reason}.`);
}

/** What DescribeTasks says of the task (one call). */
export async function observeTask(ctx: EcsContext, taskArn: string): Promise<TaskObservation | undefined> {
  const out = await aws('looked at a task', () =>
    ctx.aws.ecs.send(new DescribeTasksCommand({ cluster: ctx.settings.clusterArn, tasks: [taskArn] })),
  );
  const t = out.tasks?.[0];
  if (!t) return undefined;
  const c = t.containers?.find((x) => x.name === JOB_CONTAINER) ?? t.containers?.[0];
  return {
    lastStatus: t.lastStatus ?? 'PROVISIONING',
    ...(t.stopCode ? { stopCode: t.stopCode } : {}),
    ...(t.stoppedReason ? { stoppedReason: t.stoppedReason } : {}),
    ...(c?.exitCode !== undefined && c.exitCode !== null ? { exitCode: c.exitCode } : {}),
    ...(c?.reason ? { containerReason: c.reason } : {}),
  };
}

export async function stopOneOff(ctx: EcsContext, taskArn: string): Promise<void> {
  await unlessAbsent('stopped a task', ['InvalidParameterException'], () =>
    ctx.aws.ecs.send(new StopTaskCommand({ cluster: ctx.settings.clusterArn, task: taskArn, reason: 'Operation canceled' })),
  );
}

const LEVEL = (message: string): 'info' | 'warning' | 'error' =>
  /\b(ERROR|CRITICAL|FATAL)\b/.test(message) ? 'error' : /\bWARN(ING)?\b/.test(message) ? 'warning' : 'info';

/** The task's log lines after the cursor (one call); none while its stream does not exist yet. */
export async function taskLog(ctx: EcsContext, job: EcsJob, taskArn: string, req: LogRequest): Promise<PlatformLog | undefined> {
  const taskId = taskArn.split('/').at(-1)!;
  const out = await unlessAbsent('read a task log', ['ResourceNotFoundException'], () =>
    ctx.aws.logs.send(
      new GetLogEventsCommand({
        logGroupName: logGroupName(ctx.settings.logGroupPrefix, job.dep),
        logStreamName: `${JOB_STREAM_PREFIX}/${JOB_CONTAINER}/${taskId}`,
        startFromHead: true,
        limit: req.limit,
        ...(req.after ? { nextToken: req.after } : {}),
      }),
    ),
  );
  if (!out?.nextForwardToken) return undefined;
  const lines = (out.events ?? []).map((e) => ({
    level: LEVEL(e.message ?? ''),
    message: e.message ?? '',
    ...(e.timestamp ? { time: new Date(e.timestamp).toISOString() } : {}),
  }));
  return { lines, cursor: out.nextForwardToken };
}
