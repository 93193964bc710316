import * as dashboard from '../../contract/dashboard-routes.js';
import { organizationActivity } from '../app/activity.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listActivity, async ({ user, query }) => ({
  data: await organizationActivity(user, query),
}));
