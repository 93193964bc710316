import * as dashboard from '../../contract/dashboard-routes.js';
import { listKeys } from '../adapters/dynamo/api-key-store.js';
import { keySummary } from '../core/api-keys.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listKeys, async ({ user }) => {
  const keys = await listKeys(user.orgId);
  // The index keeps them oldest first; the dashboard shows the newest first.
  return { data: { items: keys.reverse().map(keySummary) } };
});
