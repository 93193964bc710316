import * as dashboard from '../../contract/dashboard-routes.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.getMe, async ({ user }) => ({
  data: { email: user.email, org_id: user.orgId, role: user.role },
}));
