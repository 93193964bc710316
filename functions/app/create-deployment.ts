/**
 * POST /deployments (and the dashboard's create): the deployment and its first operation
 * in one transaction, its configuration's env secrets digested and sealed for it, then the
 * workflow started (deployment-commands.ts launch). Apart from the other commands, as only
 * a create and a configuration update seal secrets (KMS) and digest them (the signing secret).
 */
import { randomUUID } from 'node:crypto';
import { ApiError, invalidRequest } from '../../contract/errors.js';
import { type CreateDeploymentBody, DEFAULT_ENVIRONMENT_ID } from '../../contract/schemas.js';
import { gatherAs } from '../adapters/dynamo/group-commit.js';
import { insertDeployment } from '../adapters/dynamo/insert-deployment.js';
import { withWriteState } from '../adapters/dynamo/org-lock.js';
import { Retry, requestRetries } from '../adapters/dynamo/transact.js';
import { applyConfigPatch, defaultConfig } from '../core/deployment-config.js';
import { autoName, newDeploymentWithOperation } from '../core/deployments.js';
import { isKnownEnvironment } from '../core/environments.js';
import { scheduleIssues } from '../core/hibernation-schedule.js';
import type { Limits } from '../core/rate-limits.js';
import { config } from '../lib/config.js';
import { changeEventsBy } from './change-events.js';
import { type ActorRequest, launch, type Started } from './deployment-commands.js';
import { envDigester } from './env-digest.js';
import { sealEnv } from './env-secrets.js';

export interface CreateRequest extends ActorRequest {
  orgId: string;
  body: CreateDeploymentBody;
  limits: Limits;
  now: Date;
}

export async function createDeployment(req: CreateRequest): Promise<Started> {
  const environmentId = req.body.environment_id ?? DEFAULT_ENVIRONMENT_ID;
  if (!isKnownEnvironment(environmentId)) {
    throw invalidRequest('Unknown environment_id.', [
      { field: 'environment_id', issue: `must be an id from GET /environments (${DEFAULT_ENVIRONMENT_ID})` },
    ]);
  }
  // The configuration asked for, over the defaults, its secrets sealed for the new deployment's id (decision 41).
  const id = randomUUID();
  const versions = config().appVersions;
  const planned = applyConfigPatch(
    defaultConfig(req.body.app_type, versions),
    req.body.config ?? {},
    { appType: req.body.app_type, versions, digest: await envDigester(req.orgId, id) },
    { allowDowngrade: true },
  );
  // Decision 50's schedules: cron expressions and an IANA time zone.
  if (planned.config.hibernation) planned.problems.push(...(await scheduleIssues(planned.config.hibernation)));
  if (planned.problems.length) throw invalidRequest('The configuration is invalid.', planned.problems);
  const firstConfig = await sealEnv(planned.config, req.orgId, id);
  const { deployment, operation } = await withWriteState(
    req.orgId,
    undefined,
    async ({ org }) => {
      const name = req.body.name ?? autoName(req.body.app_type);
      try {
        return await insertDeployment({
          orgId: req.orgId,
          org,
          limits: req.limits,
          now: req.now,
          events: changeEventsBy(req.actor),
          build: (at) =>
            newDeploymentWithOperation(
              { org_id: req.orgId, name, app_type: req.body.app_type, environment_id: environmentId, config: firstConfig },
              at,
              id,
            ),
        });
      } catch (e) {
        // A generated name that happens to be taken is simply generated again.
        if (req.body.name === undefined && e instanceof ApiError && e.code === 'DEPLOYMENT_NAME_TAKEN') throw new Retry();
        throw e;
      }
    },
    requestRetries(req.now),
    // The attempt reads nothing of its own: a burst of creates commits in groups (decision 300).
    { gather: gatherAs('deployment.create') },
  );
  return launch(operation, deployment, req.actor);
}
