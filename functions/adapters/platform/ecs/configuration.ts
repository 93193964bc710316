/**
 * A configuration update (decision 42) and hibernation (decision 50) on the service:
 * applying_config writes the new secret version and registers a task definition revision
 * pinned to it, restarting_services moves the service to that revision (the circuit
 * breaker rolls a failed one back), restore puts the previous revision back, and
 * stopping_services / starting_services set the desired count to 0 and back to 1.
 */
import { DescribeTaskDefinitionCommand } from '@aws-sdk/client-ecs';
import type { JobStatus, PlatformConfig, RestoreJob } from '../../../core/platform.js';
import { rolloutStatus } from '../../../core/platform-ecs.js';
import { aws, type EcsContext, type EcsJob, readRecord, writeRecord } from './context.js';
import { observeService, registerConfig, scaleService } from './infrastructure.js';

export async function startApplyingConfig(ctx: EcsContext, job: EcsJob, config: PlatformConfig): Promise<void> {
  if ((await readRecord(job, job.phase))?.next) return;
  const previous = (await observeService(ctx, job))?.taskDefinition;
  const next = await registerConfig(ctx, job, config, 'update');
  await writeRecord(job, { app: job.app, next, ...(previous ? { previous } : {}) }, ctx.now());
}

export async function checkApplyingConfig(ctx: EcsContext, job: EcsJob): Promise<JobStatus> {
  const record = await readRecord(job, job.phase);
  if (!record?.next) return { state: 'failed', transient: false, message: 'The platform has no record of this job.' };
  const out = await aws('looked at the task definition', () =>
    ctx.aws.ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: String(record.next) })),
  );
  return out.taskDefinition?.status === 'ACTIVE'
    ? { state: 'succeeded' }
    : { state: 'failed', transient: false, message: 'The new configuration could not be registered.' };
}

/** The revision applying_config registered for this operation. */
async function nextRevision(job: EcsJob): Promise<string | undefined> {
  const next = (await readRecord(job, 'applying_config'))?.next;
  return next === undefined ? undefined : String(next);
}

/**
 * Moves the service to the new revision. A cancel's restore (below) may have run while this
 * start was on its way (a stopped execution does not stop its running step): each writes
 * before it reads the other's, the restore its record before moving the service back, this
 * start the service before reading that record, so whichever comes last leaves the previous
 * revision running (decision 331).
 */
export async function startRestartingServices(ctx: EcsContext, job: EcsJob): Promise<void> {
  const next = await nextRevision(job);
  if (!next) return;
  await scaleService(ctx, job, 1, next);
  const restored = (await readRecord(job, 'restore'))?.restored;
  if (restored !== undefined) await scaleService(ctx, job, 1, String(restored));
}

export async function checkRestartingServices(ctx: EcsContext, job: EcsJob): Promise<JobStatus> {
  const next = await nextRevision(job);
  if (!next) return { state: 'failed', transient: false, message: 'The platform has no record of the new configuration.' };
  return rolloutStatus(await observeService(ctx, job), next, 1);
}

/** The revision the service ran before the update, back; nothing when the update never registered one. */
export async function restore(ctx: EcsContext, r: RestoreJob): Promise<void> {
  const record = await readRecord({ org: r.orgId, op: r.operationId }, 'applying_config');
  if (!record?.previous || !record.app) return;
  const job: EcsJob = { v: 1, org: r.orgId, op: r.operationId, phase: 'restore', dep: r.deploymentId, app: record.app as EcsJob['app'] };
  await writeRecord(job, { app: job.app, restored: String(record.previous) }, ctx.now());
  await scaleService(ctx, job, 1, String(record.previous));
}

export const startStoppingServices = (ctx: EcsContext, job: EcsJob) => scaleService(ctx, job, 0);
export const startStartingServices = (ctx: EcsContext, job: EcsJob) => scaleService(ctx, job, 1);

export async function checkStoppingServices(ctx: EcsContext, job: EcsJob): Promise<JobStatus> {
  const service = await observeService(ctx, job);
  if (service?.status !== 'ACTIVE') return { state: 'failed', transient: false, message: 'The application service is gone.' };
  return service.desiredCount === 0 && service.runningCount === 0 ? { state: 'succeeded' } : { state: 'running', nextCheckSeconds: 15 };
}

export async function checkStartingServices(ctx: EcsContext, job: EcsJob): Promise<JobStatus> {
  const service = await observeService(ctx, job);
  return rolloutStatus(service, service?.taskDefinition ?? '', 1);
}
