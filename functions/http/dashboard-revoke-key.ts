import * as dashboard from '../../contract/dashboard-routes.js';
import { findOrgKey, revokeApiKey } from '../app/api-key-lookups.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { keySummary } from '../core/api-keys.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.revokeKey, async ({ user, params, now }) => {
  await confirmUserInPool(user);
  return { data: keySummary(await revokeApiKey(await findOrgKey(user.orgId, params.key_id), now)) };
});
