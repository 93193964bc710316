/**
 * A deployment's health (decision 48): what GET /deployments/{id}/health answers, the
 * check the step that makes a deployment ready makes, and the checker that visits every
 * ready deployment each HEALTH_CHECK_SECONDS. The rules (roll-up, what a check changes)
 * are core/health.ts; this module asks the driver and stores what they decide.
 */

import { apiError } from '../../contract/errors.js';
import type { HealthReport } from '../../contract/monitoring-schemas.js';
import {
  type DeploymentWithHealth,
  getDeploymentWithHealth,
  saveComponents,
  saveHealthChange,
  touchHealth,
  unwatch,
  watchedPage,
} from '../adapters/dynamo/health-store.js';
import { STEP_RETRIES } from '../adapters/dynamo/transact.js';
import { hostingPlatform } from '../adapters/platform/hosting-platform.js';
import { configView } from '../core/deployment-config.js';
import { type DeploymentRecord, healthOf, isHibernated } from '../core/deployments.js';
import { applyCheck, type HealthDetail, orderComponents } from '../core/health.js';
import type { HostingPlatform } from '../core/platform.js';
import { logger } from '../lib/logger.js';
import { systemChanges } from './change-events.js';
import { deploymentIdOf } from './lookups.js';
import { visitPages } from './paged-visits.js';

/** The health of a deployment as its record and health item hold it. */
export function healthReport({
  deployment: d,
  health,
}: Required<Pick<DeploymentWithHealth, 'deployment'>> & DeploymentWithHealth): HealthReport {
  const rolled = healthOf(d);
  // Components are shown only while they describe the deployment as it is: ready, and checked.
  const current = d.status === 'ready' && health?.watched;
  return { ...rolled, checked_at: health?.checked_at ?? null, components: current ? health.components : [] };
}

/** GET /deployments/{id}/health: one Query of the deployment's key range. */
export async function deploymentHealth(orgId: string, id: string): Promise<HealthReport> {
  const found = await getDeploymentWithHealth(orgId, deploymentIdOf(id));
  if (!found.deployment) throw apiError('DEPLOYMENT_NOT_FOUND', { id });
  return healthReport({ ...found, deployment: found.deployment });
}

/** What the platform says of the deployment's components, in its app type's order; undefined when it cannot say. */
async function observe(d: DeploymentRecord, platform: HostingPlatform) {
  if (!platform.health) return undefined;
  try {
    const target = { orgId: d.org_id, deploymentId: d.id, appType: d.app_type, name: d.name };
    return orderComponents(d.app_type, await platform.health(target, configView(d.config)));
  } catch (e) {
    // The health stays as it was: a check that cannot be made changes nothing.
    logger.warn('health check could not be made', { deployment_id: d.id, error: e as Error });
    return undefined;
  }
}

/**
 * The first check of a deployment about to become ready (a create succeeding): stored by
 * the same transaction as the move, so a create that ends healthy adds no event of its own.
 * Undefined when no check can be made: the deployment is then ready with unknown health,
 * until the checker's first visit.
 */
export async function firstCheck(
  d: DeploymentRecord,
  at: string,
  platform: HostingPlatform = hostingPlatform(),
): Promise<HealthDetail | undefined> {
  const observed = await observe(d, platform);
  if (!observed) return undefined;
  const previous: HealthDetail = { ...healthOf(d), checked_at: null, components: [] };
  return applyCheck(previous, observed, at).detail;
}

export type CheckResult = 'unchanged' | 'components' | 'status' | 'unwatched' | 'skipped';

/**
 * One visit of the checker: the deployment and its health item in one Query, the driver
 * asked, and only what changed written: `checked_at` alone; the components; or the record,
 * the health item and a `deployment.updated` event (actor system) together.
 */
export async function checkDeployment(
  orgId: string,
  id: string,
  now: Date = new Date(),
  platform: HostingPlatform = hostingPlatform(),
): Promise<CheckResult> {
  const { deployment: d, health } = await getDeploymentWithHealth(orgId, id);
  if (d?.status !== 'ready' || isHibernated(d)) {
    // No longer ready, or hibernated (decision 50): leave the list (its rolled-up health already changed with the move).
    if (health?.watched) await unwatch(orgId, id);
    return 'unwatched';
  }
  const observed = await observe(d, platform);
  if (!observed) return 'skipped';
  const at = now.toISOString();
  const previous: HealthDetail = { ...healthOf(d), checked_at: health?.checked_at ?? null, components: health?.components ?? [] };
  const outcome = applyCheck(previous, observed, at);
  if (outcome.statusChanged) return (await saveHealthChange(d, outcome.detail, systemChanges, STEP_RETRIES)) ? 'status' : 'skipped';
  if (outcome.componentsChanged) return (await saveComponents(orgId, id, outcome.detail)) ? 'components' : 'skipped';
  return (await touchHealth(orgId, id, at)) ? 'unchanged' : 'skipped';
}

export interface CheckRound {
  checked: number;
  results: Partial<Record<CheckResult, number>>;
}

/**
 * One round of the checker: every deployment in healthChecks, page by page, `concurrency`
 * visits at a time. A visit that fails is logged and left to the next round.
 */
export async function checkAll(
  opts: { concurrency?: number; pageSize?: number; now?: () => Date; platform?: HostingPlatform } = {},
): Promise<CheckRound> {
  const { concurrency = 16, pageSize = 500, now = () => new Date(), platform = hostingPlatform() } = opts;
  const round: CheckRound = { checked: 0, results: {} };
  const { visited, results } = await visitPages({
    page: (after) => watchedPage(pageSize, after),
    visit: (item) => checkDeployment(item.orgId, item.deploymentId, now(), platform),
    concurrency,
    failure: 'health check failed',
  });
  round.checked = visited;
  round.results = results;
  return round;
}
