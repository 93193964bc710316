import { organizationActivity } from '../app/activity.js';
import { dashboardRoutes } from '../dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboardRoutes.listActivity, async ({ user, query }) => ({
  data: await organizationActivity(user, query),
}));
