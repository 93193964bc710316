/**
 * Changing a deployment's configuration (decisions 42-43): PATCH (a JSON merge patch of
 * `config`) and rollback (a revision's configuration) are one command: plan the new
 * configuration against the current one, check it in the order decision 42 gives, then
 * answer what would change (dry run), the deployment as it is (nothing changes), or
 * start a `deployment.update` operation whose workflow applies it.
 */
import { type WriteState, withWriteState } from '../adapters/dynamo/org-lock.js';
import { getRevision, listRevisions } from '../adapters/dynamo/revision-reads.js';
import { requestRetries } from '../adapters/dynamo/transact.js';
import {
  applyConfigPatch,
  type ConfigChange,
  type ConfigInput,
  type ConfigProblem,
  configChanges,
  type PendingConfig,
  type StoredConfig,
  versionProblems,
} from '../core/deployment-config.js';
import { blockingOperation, type DeploymentRecord, deploymentView } from '../core/deployments.js';
import { apiError, invalidRequest } from '../core/errors.js';
import { queuedOperation } from '../core/operations.js';
import type { PageRequest } from '../core/pagination.js';
import { etagOf, ifMatchHolds, type RevisionRecord, revisionNumber } from '../core/revisions.js';
import type { Deployment, Pagination } from '../core/schemas.js';
import { config } from '../lib/config.js';
import { type ActorRequest, launch, type Started, startOperation } from './deployment-commands.js';
import { envDigester, sealEnv } from './env-secrets.js';
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
interface Plan {
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
  return configChanges(d.config, plan.config);
}

/** The deployment as it would be once the plan is applied: what a dry run shows. */
function afterUpdate(d: DeploymentRecord, plan: PendingConfig): Deployment {
  const view = deploymentView(d, config().appDomain);
  return { ...deploymentView({ ...d, config: plan as StoredConfig }, config().appDomain), revision: d.revision + 1, links: view.links };
}

async function run(req: UpdateRequest, planFor: (d: DeploymentRecord) => Promise<Plan>): Promise<UpdateAnswer> {
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
      const sealed = await sealEnv(plan.config, d.org_id, d.id);
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

/** PATCH /deployments/{id}: a merge patch of `config`. */
export const updateDeployment = (req: UpdateRequest & { patch: ConfigInput | undefined }) =>
  run(req, async (d) => {
    const digest = await envDigester(d.org_id, d.id);
    const { config: planned, problems } = applyConfigPatch(d.config, req.patch ?? {}, {
      appType: d.app_type,
      versions: config().appVersions,
      digest,
    });
    return { config: planned, problems, rollbackOf: null };
  });

/** POST /deployments/{id}/rollback: revision n's configuration, secret values included. */
export const rollbackDeployment = (req: UpdateRequest & { revision: number }) =>
  run(req, async (d) => {
    const target = await findRevision(d, String(req.revision));
    const problems = versionProblems(d.config.app_version, target.config.app_version, {
      appType: d.app_type,
      versions: config().appVersions,
    });
    return { config: target.config, problems, rollbackOf: target.revision };
  });

async function findRevision(d: DeploymentRecord, raw: string): Promise<RevisionRecord> {
  const n = revisionNumber(raw);
  const found = n !== undefined && n <= d.revision ? await getRevision(d, n) : undefined;
  if (!found) throw apiError('REVISION_NOT_FOUND', { id: d.id, revision: raw });
  return found;
}

/** GET /deployments/{id}/revisions/{n}. */
export async function findDeploymentRevision(orgId: string, deploymentId: string, raw: string): Promise<RevisionRecord> {
  return findRevision(await findDeployment(orgId, deploymentId), raw);
}

/** GET /deployments/{id}/revisions: newest first; revision n is the n-th, so a page is a key range. */
export async function deploymentRevisions(
  orgId: string,
  deploymentId: string,
  page: PageRequest,
): Promise<{ items: RevisionRecord[]; pagination: Pagination }> {
  return listRevisions(await findDeployment(orgId, deploymentId), page);
}
