import { apiError } from '../../contract/errors.js';
import * as routes from '../../contract/routes.js';
import { getOrg } from '../adapters/dynamo/org-reads.js';
import { environmentsOf } from '../core/environments.js';
import { httpRoute } from '../middleware/http-route.js';

export const handler = httpRoute(routes.getEnvironment, async ({ caller, params }) => {
  const org = await getOrg(caller.orgId);
  const created = typeof org.created_at === 'string' ? org.created_at : caller.record.created_at;
  const found = environmentsOf(created).find((e) => e.id === params.environment_id);
  if (!found) throw apiError('ENVIRONMENT_NOT_FOUND', { id: params.environment_id });
  return { data: found };
});
