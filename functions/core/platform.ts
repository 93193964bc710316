/**
 * The hosting platform behind the operation phases: the port every driver implements
 * (docs/platform.md). A phase's work may take hours, so a driver is never waited on:
 * the workflow starts a job, then asks about it, with Step Functions waiting in between
 * for as long as the driver says (no Lambda holds a phase). This service ships the
 * simulated driver (adapters/platform/simulated-platform.ts).
 */
import type { AppType, Phase } from './schemas.js';

/** The phases that do work on the platform (decision 17), one job each. */
export const WORK_PHASES = [
  'provisioning_db',
  'provisioning_infrastructure',
  'provisioning_user',
  'syncing_dags',
  'destroying_infrastructure',
  'destroying_db',
  'applying_config',
  'restarting_services',
] as const satisfies readonly Phase[];
export type WorkPhase = (typeof WORK_PHASES)[number];

export const isWorkPhase = (phase: string): phase is WorkPhase => (WORK_PHASES as readonly string[]).includes(phase);

export interface DeploymentTarget {
  orgId: string;
  deploymentId: string;
  appType: AppType;
  name: string;
}

/** One phase's work for one operation. */
export interface PhaseJob {
  operationId: string;
  phase: WorkPhase;
  target: DeploymentTarget;
  /** What the operation was asked for beyond the deployment (the user of app_user.provision). */
  input?: Record<string, unknown>;
  /**
   * deployment.update (and a restore after one failed): the configuration to run, secret
   * values opened. Only the workflow's start-phase step can open them.
   */
  config?: PlatformConfig;
}

/** A configuration as a driver receives it: every env value in the clear. */
export interface PlatformConfig {
  app_version: string;
  size: string;
  env: Record<string, { value: string; secret: boolean }>;
}

/** A job as the driver knows it: opaque to the service, stored on the operation, JSON-safe. */
export type JobHandle = string;

export type JobStatus =
  /** Still working; ask again after `nextCheckSeconds` (the workflow's default when absent). */
  | { state: 'running'; nextCheckSeconds?: number }
  | { state: 'succeeded'; result?: Record<string, unknown> }
  /** `transient`: the workflow asks again with backoff before giving up; `message` is shown to the customer. */
  | { state: 'failed'; transient: boolean; message: string };

export interface HostingPlatform {
  /** Starts the phase's job. Idempotent: starting the same job again returns the same handle. */
  start(job: PhaseJob): Promise<JobHandle>;
  check(handle: JobHandle): Promise<JobStatus>;
  /** Stops the job where the platform can; a job already finished or stopped is left as it is. */
  cancel(handle: JobHandle): Promise<void>;
  /**
   * After a configuration update failed or was canceled: puts back the configuration the
   * deployment ran before it (the platform has it; nothing secret is sent again). Started,
   * not waited on; idempotent. A driver without it leaves the platform as the update left it.
   */
  restore?(job: RestoreJob): Promise<void>;
}

/** The update whose configuration is to be undone. */
export interface RestoreJob {
  operationId: string;
  orgId: string;
  deploymentId: string;
}

/** A failure the workflow retries with backoff (ASL Retry on this error name). */
export class TransientPlatformError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TransientPlatformError';
  }
}

/** A failure that ends the operation `failed`. */
export class PlatformError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlatformError';
  }
}

/** The errors a driver raises on purpose: their messages are for customers. */
export const isPlatformErrorName = (name: string): boolean => name === 'PlatformError' || name === 'TransientPlatformError';
