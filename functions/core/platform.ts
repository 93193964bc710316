/**
 * The hosting platform behind the operation phases: the port every driver implements
 * (docs/platform.md). A phase's work may take hours, so a driver is never waited on:
 * the workflow starts a job, then asks about it, with Step Functions waiting in between
 * for as long as the driver says (no Lambda holds a phase). This service ships the
 * simulated driver (adapters/platform/simulated-platform.ts).
 */

import type { AppType } from '../../contract/schemas.js';
import { isWorkPhase, WORK_PHASES, type WorkPhase } from '../../contract/vocabulary.js';
import type { ConfigView } from './deployment-config.js';
import type { ComponentObservation } from './health.js';
import type { MetricSeries, MetricsWindow, RunInterval } from './metrics-range.js';

// The phases that do work on the platform (decision 17), one job each: derived from the
// phase map (contract/vocabulary.ts, decision 211), so a new work phase is never left out.
export { isWorkPhase, WORK_PHASES, type WorkPhase };

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
  /**
   * What the operation was asked for beyond the deployment: app_user.provision's user, its
   * `password` in the clear (decision 256; never log it).
   */
  input?: Record<string, unknown>;
  /**
   * deployment.create and deployment.update: the configuration to run (a create's first,
   * an update's new one), secret values opened. Only the workflow's start-phase step can
   * open them; they are redacted from the operation's log as for updates.
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
  (
    | { state: 'running'; nextCheckSeconds?: number }
    | { state: 'succeeded'; result?: Record<string, unknown> }
    /** `transient`: the workflow asks again with backoff before giving up; `message` is shown to the customer. */
    | { state: 'failed'; transient: boolean; message: string }
  ) & {
    /** The job's log lines after the cursor the check was given, oldest first (decision 45), and the cursor after them. */
    log?: PlatformLog;
  };

/** What a driver passes on of its platform's log for a job: shown to the customer in the operation's log. */
export interface PlatformLog {
  /** At most `limit` lines: more are asked for at the next check, from `cursor`. */
  lines: PlatformLogLine[];
  /** Opaque to the service: where the lines returned end. */
  cursor: string;
}

export interface PlatformLogLine {
  level: 'info' | 'warning' | 'error';
  message: string;
  /** When the platform wrote it (ISO 8601); the service never stores a time earlier than the line before. */
  time?: string;
}

/** Which log lines a check asks for: those after `after` (from the start when absent), at most `limit`. */
export interface LogRequest {
  after?: string;
  limit: number;
}

export interface HostingPlatform {
  /** Starts the phase's job. Idempotent: starting the same job again returns the same handle. */
  start(job: PhaseJob): Promise<JobHandle>;
  /**
   * The job's state, and, when asked, its log lines since the last ones stored. A line
   * may hold anything but a secret env value; the workflow replaces any it finds anyway.
   */
  check(handle: JobHandle, log?: LogRequest): Promise<JobStatus>;
  /** Stops the job where the platform can; a job already finished or stopped is left as it is. */
  cancel(handle: JobHandle): Promise<void>;
  /**
   * After a configuration update failed or was canceled: puts back the configuration the
   * deployment ran before it (the platform has it; nothing secret is sent again). Started,
   * not waited on; idempotent. A driver without it leaves the platform as the update left it.
   */
  restore?(job: RestoreJob): Promise<void>;
  /**
   * Decision 48: what the platform observes of the deployment's components now (any order;
   * one it does not report reads as unknown). Asked of a ready, awake deployment only;
   * `config` is what it runs, secret values left out (none is needed to ask). A driver
   * without it leaves every deployment's health unknown.
   */
  health?(target: DeploymentTarget, config: ConfigView): Promise<ComponentObservation[]>;
  /**
   * Decision 49: the window's series, in the window's order of metrics, with points only
   * for periods in which the deployment ran (`runs`) that have ended or have data. The
   * same ended period answers the same values at every later call. A driver without it
   * answers no points.
   */
  metrics?(target: DeploymentTarget & { size: string }, window: MetricsWindow, runs: readonly RunInterval[]): Promise<MetricSeries[]>;
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
