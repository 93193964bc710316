import * as dashboard from '../../contract/dashboard-routes.js';
import { invalidRequest } from '../../contract/errors.js';
import { createApiKey } from '../app/api-keys.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { keySummary } from '../core/api-keys.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.createKey, async ({ user, body, now }) => {
  if (body.expires_at && Date.parse(body.expires_at) <= now.getTime())
    throw invalidRequest('The request body is invalid.', [{ field: 'expires_at', issue: 'must be in the future' }]);
  await confirmUserInPool(user);
  const { key, record } = await createApiKey({ orgId: user.orgId, name: body.name, scopes: body.scopes, expiresAt: body.expires_at, now });
  return { status: 201, data: { ...keySummary(record), key } };
});
