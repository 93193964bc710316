import * as dashboard from '../../contract/dashboard-routes.js';
import { deploymentRevisions } from '../app/deployment-revisions.js';
import { revisionView } from '../core/revisions.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listRevisions, async ({ user, params, query }) => {
  const { items, pagination } = await deploymentRevisions(user.orgId, params.deployment_id, query);
  return { data: { items: items.map(revisionView), pagination } };
});
