import * as dashboard from '../../contract/dashboard-routes.js';
import { readUsagePage } from '../adapters/dynamo/usage-reads.js';
import { findOrgKey } from '../app/api-key-lookups.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.listKeyUsage, async ({ user, params, query }) => {
  const key = await findOrgKey(user.orgId, params.key_id);
  return { data: await readUsagePage(key.id, { perPage: query.per_page, status: query.status, cursor: query.cursor }) };
});
