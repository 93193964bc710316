/**
 * A deployment's health (decision 48): the components each app type reports, how they roll
 * up into the one status on the deployment record, and what a new check changes. Pure, so
 * every rule is unit-tested state by state; the checker and the phase that makes a
 * deployment ready only store what `applyCheck` decides.
 */

import {
  COMPONENT_STATUSES,
  type ComponentName,
  type ComponentStatus,
  HEALTH_COMPONENTS,
  HEALTH_STATUSES,
  type HealthStatus,
} from '../../contract/vocabulary.js';

// The lists are the vocabulary's (contract/vocabulary.ts); the rules over them are here.
export { COMPONENT_STATUSES, type ComponentName, type ComponentStatus, HEALTH_COMPONENTS, HEALTH_STATUSES, type HealthStatus };

/** Without these the application does not serve its users: one of them down is `unhealthy`, any other `degraded`. */
const ESSENTIAL: ReadonlySet<string> = new Set(['webserver', 'metadata_db', 'scheduler']);

/** What a driver observed of one component. */
export interface ComponentObservation {
  name: string;
  status: ComponentStatus;
  message: string | null;
}

export interface ComponentHealth extends ComponentObservation {
  since: string;
}

/** The rolled-up health the deployment record carries. */
export interface DeploymentHealth {
  status: HealthStatus;
  since: string;
}

/** What the health endpoint answers beyond the record's part. */
export interface HealthDetail extends DeploymentHealth {
  checked_at: string | null;
  components: ComponentHealth[];
}

/** The rolled-up status of a ready, awake deployment's components. */
export function rollUp(components: readonly Pick<ComponentObservation, 'name' | 'status'>[]): HealthStatus {
  if (components.length === 0) return 'unknown';
  if (components.some((c) => c.status === 'unhealthy' && ESSENTIAL.has(c.name))) return 'unhealthy';
  if (components.some((c) => c.status === 'unhealthy')) return 'degraded';
  return components.every((c) => c.status === 'healthy') ? 'healthy' : 'unknown';
}

/** The health a deployment starts with, and returns to whenever it is not ready. */
export const unknownHealth = (since: string): HealthDetail => ({ status: 'unknown', since, checked_at: null, components: [] });

/**
 * Puts a driver's observations in the app type's order: a component the driver did not
 * report is `unknown`, one it reported that the app type does not have is ignored.
 */
export function orderComponents(
  appType: keyof typeof HEALTH_COMPONENTS,
  observed: readonly ComponentObservation[],
): ComponentObservation[] {
  return HEALTH_COMPONENTS[appType].map(
    (name) => observed.find((o) => o.name === name) ?? { name, status: 'unknown', message: 'The platform did not report this component.' },
  );
}

export interface CheckOutcome {
  detail: HealthDetail;
  /** The rolled-up status changed: the record and a `deployment.updated` event are written. */
  statusChanged: boolean;
  /** A component's status or message changed (with or without the rolled-up status). */
  componentsChanged: boolean;
}

/**
 * A check's result applied to what was known. `since` moves only for what changed; a
 * check that changes nothing moves only `checked_at`.
 */
export function applyCheck(previous: HealthDetail, observed: readonly ComponentObservation[], at: string): CheckOutcome {
  const components = observed.map((o): ComponentHealth => {
    const before = previous.components.find((c) => c.name === o.name);
    if (before && before.status === o.status) return { ...before, message: o.message };
    return { ...o, since: at };
  });
  const status = rollUp(components);
  const statusChanged = status !== previous.status;
  const componentsChanged =
    components.length !== previous.components.length ||
    components.some((c, i) => {
      const p = previous.components[i];
      return !p || p.name !== c.name || p.status !== c.status || p.message !== c.message;
    });
  return {
    detail: { status, since: statusChanged ? at : previous.since, checked_at: at, components },
    statusChanged,
    componentsChanged,
  };
}

/** The health of a deployment that is hibernated (decision 50): no components, nothing to check. */
export function hibernatedHealth(previous: HealthDetail, at: string): HealthDetail {
  const since = previous.status === 'hibernated' ? previous.since : at;
  return { status: 'hibernated', since, checked_at: previous.checked_at, components: [] };
}
