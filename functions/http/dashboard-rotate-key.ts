import * as dashboard from '../../contract/dashboard-routes.js';
import { findOrgKey } from '../app/api-key-lookups.js';
import { rotateApiKey } from '../app/api-keys.js';
import { confirmUserInPool } from '../app/dashboard-users.js';
import { keySummary, ROTATION_GRACE } from '../core/api-keys.js';
import { dashboardRoute } from '../middleware/dashboard-route.js';

export const handler = dashboardRoute(dashboard.rotateKey, async ({ user, params, body, now }) => {
  await confirmUserInPool(user);
  const old = await findOrgKey(user.orgId, params.key_id);
  const { key, record } = await rotateApiKey(old, body.grace_seconds ?? ROTATION_GRACE.default, now);
  return { status: 201, data: { ...keySummary(record), key, rotated_from: old.id } };
});
