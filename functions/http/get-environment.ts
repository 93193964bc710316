import { getOrg } from '../adapters/dynamo/orgs-repo.js';
import { environmentsOf } from '../core/environments.js';
import { ApiError } from '../core/errors.js';
import { httpHandler } from '../lib/http.js';
import { routes } from '../routes.js';

export const handler = httpHandler(routes.getEnvironment, async ({ caller, params }) => {
  const org = await getOrg(caller.orgId);
  const found = environmentsOf(typeof org.created_at === 'string' ? org.created_at : caller.record.created_at).find(
    (e) => e.id === params.environment_id,
  );
  if (!found) throw new ApiError(404, 'ENVIRONMENT_NOT_FOUND', `Environment ${params.environment_id} was not found.`);
  return { data: found };
});
