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
