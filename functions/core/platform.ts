/**
 * The hosting platform behind the operation phases: the interface every driver
 * implements. A real driver would call the platform's provisioning APIs; this service
 * ships the simulated one (adapters/platform/simulated-platform.ts). Every method must be idempotent:
 * Step Functions retries a step after a transient error.
 */
import type { AppType } from './schemas.js';

export interface DeploymentTarget {
  orgId: string;
  deploymentId: string;
  appType: AppType;
  name: string;
}

export interface AppUser {
  username: string;
  email: string;
  role: string;
}

export interface HostingPlatform {
  provisionDatabase(t: DeploymentTarget): Promise<void>;
  provisionInfrastructure(t: DeploymentTarget): Promise<void>;
  provisionAppUser(t: DeploymentTarget, user: AppUser): Promise<void>;
  syncDags(t: DeploymentTarget): Promise<void>;
  destroyInfrastructure(t: DeploymentTarget): Promise<void>;
  destroyDatabase(t: DeploymentTarget): Promise<void>;
}

/** The platform call each work phase makes (decision 17's phases, declared in core/operations.ts). */
export const PHASE_CALLS = {
  provisioning_db: 'provisionDatabase',
  provisioning_infrastructure: 'provisionInfrastructure',
  provisioning_user: 'provisionAppUser',
  syncing_dags: 'syncDags',
  destroying_infrastructure: 'destroyInfrastructure',
  destroying_db: 'destroyDatabase',
} as const satisfies Record<string, keyof HostingPlatform>;

export type WorkPhase = keyof typeof PHASE_CALLS;

/** A platform whose every call is `step(phase)`: the shape of simulated and test drivers. */
export function platformOf(step: (phase: WorkPhase) => (target: DeploymentTarget) => Promise<void>): HostingPlatform {
  const phases = Object.keys(PHASE_CALLS) as WorkPhase[];
  return Object.fromEntries(phases.map((phase) => [PHASE_CALLS[phase], step(phase)])) as Record<
    (typeof PHASE_CALLS)[WorkPhase],
    (target: DeploymentTarget, user?: AppUser) => Promise<void>
  >;
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
