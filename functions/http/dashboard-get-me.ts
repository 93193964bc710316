import { dashboardRoutes } from '../dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboardRoutes.getMe, async ({ user }) => ({
  data: { email: user.email, org_id: user.orgId, role: user.role },
}));
