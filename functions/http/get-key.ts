import * as routes from '../../contract/routes.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.getKey, async ({ caller: { record } }) => ({
  data: {
    id: record.id,
    name: record.name,
    org_id: record.org_id,
    scopes: record.scopes,
    expires_at: record.expires_at,
    created_at: record.created_at,
    hint: record.hint,
    last_used_at: record.last_used_at,
  },
}));
