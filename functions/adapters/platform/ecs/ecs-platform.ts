/**
 * The ECS driver (decision 52): each deployment runs on Amazon ECS on Fargate behind a
 * shared Application Load Balancer, its metadata database on a shared Aurora PostgreSQL
 * cluster. Each phase's `start` makes what the phase needs (idempotent: names from ids,
 * client tokens, job records) and `check` reads AWS's state of it, at most 6 AWS calls,
 * turning what it sees into a JobStatus by the pure rules of core/platform-ecs.ts.
 */
import type { HostingPlatform, JobStatus, PhaseJob } from '../../../core/platform.js';
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

export function ecsPlatform({ settings, appDomain, now = Date.now }: EcsPlatformOptions): HostingPlatform {
  const ctx: EcsContext = { settings, aws: ecsClients(settings.region), appDomain, now };
  return {
    async start(job) {
      const j: EcsJob = {
        v: 1,
        org: job.target.orgId,
        op: job.operationId,
        phase: job.phase,
        dep: job.target.deploymentId,
        app: job.target.appType,
      };
      switch (job.phase) {
        case 'provisioning_db':
          await startProvisioningDb(ctx, j);
          break;
        case 'provisioning_infrastructure':
          await startProvisioningInfrastructure(ctx, j, needConfig(job));
          break;
        case 'destroying_infrastructure':
          await startDestroyingInfrastructure(ctx, j);
          break;
        case 'destroying_db':
          await startDestroyingDb(ctx, j);
          break;
        case 'syncing_dags':
        case 'provisioning_user':
          await startAppJob(ctx, j, job.input);
          break;
        case 'applying_config':
          await startApplyingConfig(ctx, j, needConfig(job));
          break;
        case 'restarting_services':
          await startRestartingServices(ctx, j);
          break;
        case 'stopping_services':
          await startStoppingServices(ctx, j);
          break;
        case 'starting_services':
          await startStartingServices(ctx, j);
          break;
      }
      return handleOf(j);
    },

    async check(handle, log): Promise<JobStatus> {
      const j = jobOf(handle);
      switch (j.phase) {
        case 'provisioning_db':
          return checkProvisioningDb(ctx, j);
        case 'provisioning_infrastructure':
          return checkProvisioningInfrastructure(ctx, j, log);
        case 'destroying_infrastructure':
          return checkDestroyingInfrastructure(ctx, j);
        case 'destroying_db':
          return checkDestroyingDb(ctx, j);
        case 'syncing_dags':
        case 'provisioning_user':
          return checkAppJob(ctx, j, log);
        case 'applying_config':
          return checkApplyingConfig(ctx, j);
        case 'restarting_services':
          return checkRestartingServices(ctx, j);
        case 'stopping_services':
          return checkStoppingServices(ctx, j);
        case 'starting_services':
          return checkStartingServices(ctx, j);
        default:
          return { state: 'failed', transient: false, message: 'The platform has no record of this job.' };
      }
    },

    async cancel(handle) {
      const j = jobOf(handle);
      if (j.phase === 'provisioning_infrastructure') await cancelProvisioningInfrastructure(ctx, j);
      else if (j.phase === 'syncing_dags' || j.phase === 'provisioning_user') await cancelAppJob(ctx, j);
      // The other phases' work takes seconds, or is undone by what follows (restore, a destroy).
    },

    restore: (r) => restore(ctx, r),
  };
}
