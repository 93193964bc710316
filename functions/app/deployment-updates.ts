/**
 * Changing a deployment's configuration (decisions 42-43): PATCH (a JSON merge patch of
 * `config`) and rollback (a revision's configuration) are one command: plan the new
 * configuration against the current one, check it in the contract's order (415, 400, 404,
 * 400 against the current config, 412, 409: decision 42), then
 * answer what would change (dry run), the deployment as it is (nothing changes), or
 * start a `deployment.update` operation whose workflow applies it. The patch is
 * update-config.ts, which seals and digests secrets; the revisions' reads are
 * deployment-revisions.ts.
 */

import { apiError, invalidRequest } from '../../contract/errors.js';
import type { Deployment } from '../../contract/schemas.js';
import { type WriteState, withWriteState } from '../adapters/dynamo/org-lock.js';
import { requestRetries } from '../adapters/dynamo/transact.js';
import {
  type ConfigChange,
  type ConfigProblem,
  configChanges,
  envSizeProblems,
  type PendingConfig,
  type StoredConfig,
  versionProblems,
} from '../core/deployment-config.js';
import { blockingOperation, type DeploymentRecord, deploymentView, isHibernated } from '../core/deployments.js';
import { queuedOperation } from '../core/operations.js';
import { etagOf, ifMatchHolds } from '../core/revisions.js';
import { config } from '../lib/config.js';
import { type ActorRequest, launch, type Started, startOperation } from './deployment-commands.js';
import { findRevision } from './deployment-revisions.js';
import { deploymentIdOf, findDeployment } from './lookups.js';

export interface UpdateRequest extends ActorRequest {
  orgId: string;
  deploymentId: string;
  ifMatch: string | undefined;
  dryRun: boolean;
  now: Date;
}

/** What an update answers; `etag` is the deployment's current revision in every case. */
export type UpdateAnswer = { etag: string } & (
  | { unchanged: Deployment }
  | { dryRun: { deployment: Deployment; changes: ConfigChange[] } }
  | { started: Started }
);

/** The configuration a request asks for, planned against the deployment as it is. */
export interface Plan {
  config: PendingConfig;
  problems: ConfigProblem[];
  rollbackOf: number | null;
}

const badConfig = (problems: ConfigProblem[]) => invalidRequest('The configuration is invalid.', problems);

/**
 * Decision 42's order after the body's shape and the 404: the configuration (400), then
 * If-Match (412), then the deployment's state (409). Returns what would change.
 */
function check(d: DeploymentRecord, plan: Plan, ifMatch: string | undefined): ConfigChange[] {
  if (plan.problems.length) throw badConfig(plan.problems);
  if (!ifMatchHolds(ifMatch, d.revision)) throw apiError('PRECONDITION_FAILED', { ifMatch: ifMatch ?? '', revision: d.revision });
  if (d.status !== 'ready') throw apiError('DEPLOYMENT_NOT_READY', { id: d.id, status: d.status });
  const blocking = blockingOperation(d, 'update');
  if (blocking) throw apiError('OPERATION_IN_PROGRESS', { id: d.id, operationId: blocking }, { operationId: blocking });
  const changes = configChanges(d.config, plan.config);
  // Decision 50: while hibernated only the schedules may change (the last of the 409s).
  if (isHibernated(d) && changes.some((c) => c.field !== 'config.hibernation')) throw apiError('DEPLOYMENT_HIBERNATED', { id: d.id });
  return changes;
}

/** The deployment as it would be once the plan is applied: what a dry run shows. */
function afterUpdate(d: DeploymentRecord, plan: PendingConfig): Deployment {
  const view = deploymentView(d, config().appDomain);
  return { ...deploymentView({ ...d, config: plan as StoredConfig }, config().appDomain), revision: d.revision + 1, links: view.links };
}

/**
 * Plans, checks and starts (or answers) one update. `seal` seals the plan's new secret
 * values for the deployment: a configuration patch brings some (update-config.ts); a
 * rollback's revision holds only sealed ones, so it needs no sealer.
 */
export async function runUpdate(
  req: UpdateRequest,
  planFor: (d: DeploymentRecord) => Promise<Plan>,
  seal: (config: PendingConfig, d: DeploymentRecord) => Promise<StoredConfig> = async (config) => config as StoredConfig,
): Promise<UpdateAnswer> {
  if (req.dryRun) {
    const d = await findDeployment(req.orgId, req.deploymentId);
    const plan = await planFor(d);
    const changes = check(d, plan, req.ifMatch);
    const deployment = changes.length ? afterUpdate(d, plan.config) : deploymentView(d, config().appDomain);
    return { etag: etagOf(d.revision), dryRun: { deployment, changes } };
  }
  const outcome = await withWriteState(
    req.orgId,
    deploymentIdOf(req.deploymentId),
    async (state: WriteState) => {
      if (!state.deployment) throw apiError('DEPLOYMENT_NOT_FOUND', { id: req.deploymentId });
      const d = state.deployment;
      const plan = await planFor(d);
      const changes = check(d, plan, req.ifMatch);
      if (changes.length === 0) return { unchanged: d };
      const sealed = await seal(plan.config, d);
      return startOperation(
        state,
        d,
        (at) =>
          queuedOperation({
            org_id: d.org_id,
            type: 'deployment.update',
            resource_id: d.id,
            requested_at: at,
            update: { config: sealed, changes, rollback_of: plan.rollbackOf },
          }),
        req.now,
        req.actor,
      );
    },
    requestRetries(req.now),
  );
  if ('unchanged' in outcome)
    return { etag: etagOf(outcome.unchanged.revision), unchanged: deploymentView(outcome.unchanged, config().appDomain) };
  return { etag: etagOf(outcome.deployment.revision), started: await launch(outcome.operation, outcome.deployment, req.actor) };
}

/** POST /deployments/{id}/rollback: revision n's configuration, secret values included. */
export const rollbackDeployment = (req: UpdateRequest & { revision: number }) =>
  runUpdate(req, async (d) => {
    const target = await findRevision(d, String(req.revision));
    const problems = [
      ...versionProblems(d.config.app_version, target.config.app_version, { appType: d.app_type, versions: config().appVersions }),
      // A revision applied before decision 41's cap may hold more: it is not applied again.
      ...envSizeProblems(new Map(Object.entries(target.config.env))),
    ];
    return { config: target.config, problems, rollbackOf: target.revision };
  });
