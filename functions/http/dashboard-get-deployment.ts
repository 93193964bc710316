import * as dashboard from '../../contract/dashboard-routes.js';
import { deploymentHealth } from '../app/deployment-health.js';
import { deploymentMetrics } from '../app/deployment-metrics.js';
import { deploymentRevisions } from '../app/deployment-revisions.js';
import { findDeployment } from '../app/lookups.js';
import { deploymentView } from '../core/deployments.js';
import { revisionView } from '../core/revisions.js';
import { config } from '../lib/config.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';
import type { LambdaHandler } from '../middleware/http-route.js';

const deployment = dashboardRoute(dashboard.getDeployment, async ({ user, params }) => ({
  data: deploymentView(await findDeployment(user.orgId, params.deployment_id), config().appDomain),
}));

const revisions = dashboardRoute(dashboard.listRevisions, async ({ user, params, query }) => {
  const { items, pagination } = await deploymentRevisions(user.orgId, params.deployment_id, query);
  return { data: { items: items.map(revisionView), pagination } };
});

// The same answers as the public routes (decisions 48 and 49), from the same use cases.
const health = dashboardRoute(dashboard.getDeploymentHealth, async ({ user, params }) => ({
  data: await deploymentHealth(user.orgId, params.deployment_id),
}));

const metrics = dashboardRoute(dashboard.getDeploymentMetrics, async ({ user, params, query, now }) => ({
  data: await deploymentMetrics(user.orgId, params.deployment_id, query, now),
}));

const BY_LAST_SEGMENT: Record<string, LambdaHandler> = { revisions, health, metrics };

/**
 * One function serves the deployment page's reads (the record, its revisions, health and
 * metrics; each route names this handler): a function each would take the prod stack past
 * its resource headroom (decision 290). The route is the resource's last segment.
 */
export const handler: LambdaHandler = (event, context) => {
  const last = (event.resource ?? event.path ?? '').split('/').pop() ?? '';
  return (BY_LAST_SEGMENT[last] ?? deployment)(event, context);
};
