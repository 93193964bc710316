/**
 * The ECS driver (decision 52): each deployment runs on Amazon ECS on Fargate behind a
 * shared Application Load Balancer, its metadata database on a shared Aurora PostgreSQL
 * cluster. Each phase's `start` makes what the phase needs (idempotent: names from ids,
 * client tokens, job records) and `check` reads AWS's state of it, at most 6 AWS calls,
 * turning what it sees into a JobStatus by the pure rules of core/platform-ecs.ts.
 */
import type { HostingPlatform, JobStatus, LogRequest, PhaseJob, WorkPhase } from '../../../core/platform.js';
import { PlatformError } from '../../../core/platform.js';
import { cancelAppJob, checkAppJob, startAppJob } from './app-jobs.js';
import { ecsClients } from './clients.js';
import {
  checkApplyingConfig,
  checkRestartingServices,
  checkStartingServices,
  checkStoppingServices,
  restore,
  startApplyingConfig,
  startRestartingServices,
  startStartingServices,
  startStoppingServices,
} from './configuration.js';
import { type EcsContext, type EcsJob, handleOf, jobOf } from './context.js';
import { checkDestroyingDb, checkProvisioningDb, startDestroyingDb, startProvisioningDb } from './database.js';
import {
  cancelProvisioningInfrastructure,
  checkDestroyingInfrastructure,
  checkProvisioningInfrastructure,
  startDestroyingInfrastructure,
  startProvisioningInfrastructure,
} from './infrastructure.js';
import { ecsHealthOf, ecsMetricsOf } from './monitoring.js';
import type { EcsSettings } from './settings.js';

export interface EcsPlatformOptions {
  settings: EcsSettings;
  appDomain: string;
  now?: () => number;
}

const needConfig = (job: PhaseJob) => {
  if (!job.config) throw new PlatformError(`The ${job.phase} phase needs the deployment's configuration.`);
  return job.config;
};

/** What each work phase does on ECS: its start, its check, and its cancel where there is a job to stop. */
interface EcsPhase {
  start(ctx: EcsContext, job: EcsJob, asked: PhaseJob): Promise<void>;
  check(ctx: EcsContext, job: EcsJob, log?: LogRequest): Promise<JobStatus>;
  cancel?(ctx: EcsContext, job: EcsJob): Promise<void>;
}

const appJob: EcsPhase = { start: (ctx, job, asked) => startAppJob(ctx, job, asked.input), check: checkAppJob, cancel: cancelAppJob };

// The other phases' work takes seconds, or is undone by what follows (restore, a destroy): nothing to cancel.
const PHASES: Record<WorkPhase, EcsPhase> = {
  provisioning_db: { start: startProvisioningDb, check: checkProvisioningDb },
  provisioning_infrastructure: {
    start: (ctx, job, asked) => startProvisioningInfrastructure(ctx, job, needConfig(asked)),
    check: checkProvisioningInfrastructure,
    cancel: cancelProvisioningInfrastructure,
  },
  destroying_infrastructure: { start: startDestroyingInfrastructure, check: checkDestroyingInfrastructure },
  destroying_db: { start: startDestroyingDb, check: checkDestroyingDb },
  syncing_dags: appJob,
  provisioning_user: appJob,
  applying_config: { start: (ctx, job, asked) => startApplyingConfig(ctx, job, needConfig(asked)), check: checkApplyingConfig },
  restarting_services: { start: startRestartingServices, check: checkRestartingServices },
  stopping_services: { start: startStoppingServices, check: checkStoppingServices },
  starting_services: { start: startStartingServices, check: checkStartingServices },
};

export function ecsPlatform({ settings, appDomain, now = Date.now }: EcsPlatformOptions): HostingPlatform {
  const ctx: EcsContext = { settings, aws: ecsClients(settings.region), appDomain, now };
  return {
    async start(asked) {
      const job: EcsJob = {
        v: 1,
        org: asked.target.orgId,
        op: asked.operationId,
        phase: asked.phase,
        dep: asked.target.deploymentId,
        app: asked.target.appType,
      };
      await PHASES[asked.phase].start(ctx, job, asked);
      return handleOf(job);
    },

    async check(handle, log): Promise<JobStatus> {
      const job = jobOf(handle);
      const phase = PHASES[job.phase as WorkPhase];
      return phase ? phase.check(ctx, job, log) : { state: 'failed', transient: false, message: 'The platform has no record of this job.' };
    },

    async cancel(handle) {
      const job = jobOf(handle);
      await PHASES[job.phase as WorkPhase]?.cancel?.(ctx, job);
    },

    restore: (r) => restore(ctx, r),

    health: (target) => ecsHealthOf(ctx, target),
    metrics: (target, window, runs) => ecsMetricsOf(ctx, target, window, runs),
  };
}
