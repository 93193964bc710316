/**
 * A deployment and its create operation written as the create path writes them (its
 * events in the same transaction), without a request: for the workflow harness and the
 * delivery benchmark, which write many and so set the organization's limits out of reach.
 */

import { DEFAULT_ENVIRONMENT_ID } from '../../contract/schemas.js';
import { insertDeployment } from '../../functions/adapters/dynamo/insert-deployment.js';
import { withWriteState } from '../../functions/adapters/dynamo/org-lock.js';
import { STEP_RETRIES } from '../../functions/adapters/dynamo/transact.js';
import { systemChanges } from '../../functions/app/change-events.js';
import { type NewDeploymentFields, newDeploymentWithOperation } from '../../functions/core/deployments.js';

const UNREACHED_LIMITS = { perHour: 1_000_000, perMinute: 1_000_000, createsPerHour: 1_000_000 };

export async function seedDeployment(orgId: string, fields: Pick<NewDeploymentFields, 'name' | 'app_type'>) {
  return withWriteState(
    orgId,
    undefined,
    ({ org }) =>
      insertDeployment({
        orgId,
        org,
        limits: UNREACHED_LIMITS,
        now: new Date(),
        events: systemChanges,
        build: (at) => newDeploymentWithOperation({ org_id: orgId, environment_id: DEFAULT_ENVIRONMENT_ID, ...fields }, at),
      }),
    STEP_RETRIES,
  );
}
