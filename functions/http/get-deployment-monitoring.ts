import * as routes from '../../contract/routes.js';
import { deploymentHealth } from '../app/deployment-health.js';
import { deploymentMetrics } from '../app/deployment-metrics.js';
import { httpRoute, type LambdaHandler } from '../middleware/http-route.js';

const health = httpRoute(routes.getDeploymentHealth, async ({ caller, params }) => ({
  data: await deploymentHealth(caller.orgId, params.deployment_id),
}));

const metrics = httpRoute(routes.getDeploymentMetrics, async ({ caller, params, query, now }) => ({
  data: await deploymentMetrics(caller.orgId, params.deployment_id, query, now),
}));

/**
 * One function serves a deployment's health and its metrics (both routes name this
 * handler): a function of its own each would take the stack past its resource headroom
 * (docs/deploy.md, Size and limits) for two small reads.
 */
export const handler: LambdaHandler = (event, context) =>
  event.resource?.endsWith('/metrics') || event.path?.endsWith('/metrics') ? metrics(event, context) : health(event, context);
