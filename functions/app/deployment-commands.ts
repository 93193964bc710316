/**
 * What the API's asynchronous endpoints do: write the records (deployment and
 * operation, one transaction), then start the workflow. If the workflow cannot be
 * started, the operation ends `failed` at once, never stuck in `queued`, and the
 * client gets a 500 naming the operation.
 */

import { apiError, internalError, invalidRequest } from '../../contract/errors.js';
import type { Operation, OperationType } from '../../contract/schemas.js';
import { applyTransition } from '../adapters/dynamo/apply-transition.js';
import { getDeployment } from '../adapters/dynamo/deployment-reads.js';
import { gatherAs } from '../adapters/dynamo/group-commit.js';
import { insertOperation } from '../adapters/dynamo/insert-operation.js';
import { getOperation } from '../adapters/dynamo/operation-reads.js';
import { type WriteState, withWriteState } from '../adapters/dynamo/org-lock.js';
import { Retry, requestRetries, withRetries } from '../adapters/dynamo/transact.js';
import { hostingPlatform, restoreConfig } from '../adapters/platform/hosting-platform.js';
import { startExecution, stopExecution } from '../adapters/sfn/executions.js';
import { blockingOperation, type DeploymentRecord, deploymentMoveAfter, hibernationInFlight, isHibernated } from '../core/deployments.js';
import type { Actor } from '../core/events.js';
import { CANCELABLE_TYPES, isTerminal, type OperationRecord, operationView, queuedOperation, workflowInput } from '../core/operations.js';
import { logger } from '../lib/logger.js';
import { emit } from '../lib/metrics.js';
import { changeEventsBy } from './change-events.js';
import { deploymentIdOf, findOperation } from './lookups.js';

/** What an asynchronous request started: the deployment and the operation to watch. */
export interface Started {
  deploymentId: string;
  operationId: string;
}

/**
 * Starts the workflow of a freshly written operation, or ends it `failed` if that is
 * impossible: a change of the request's, so `actor`'s.
 */
export async function launch(op: OperationRecord, deployment: DeploymentRecord, actor: Actor): Promise<Started> {
  try {
    await startExecution(workflowInput(op));
    emit('operationsStarted', { operation_type: op.type }, 1);
    return { deploymentId: deployment.id, operationId: op.id };
  } catch (e) {
    logger.error('could not start workflow', { operation_id: op.id, error: e as Error });
  }
  const at = new Date().toISOString();
  await applyTransition({
    operation: op,
    change: {
      status: 'failed',
      ended_at: at,
      message: 'Failed: the workflow could not be started.',
      error: { code: 'WORKFLOW_START_FAILED', message: 'The workflow for this operation could not be started.' },
    },
    deployment: deploymentMoveAfter('failed', op.type, deployment),
    at,
    // A fault path already: past this budget the reconciler ends the operation instead.
    retries: { budgetMs: 3_000, exhausted: 'rethrow' },
    events: changeEventsBy(actor),
  });
  emit('operationsFailed', { operation_type: op.type }, 1);
  throw internalError(op.id);
}

/** Who asks (decision 46): every change a command makes carries it. */
export interface ActorRequest {
  actor: Actor;
}

/** The deployment a write started from, or the 404 for an id that names none (decision 30). */
export function foundDeployment(state: WriteState, id: string): DeploymentRecord {
  if (!state.deployment) throw apiError('DEPLOYMENT_NOT_FOUND', { id });
  return state.deployment;
}

/** Decisions 11-12: DELETE cancels what is in flight and starts one destroy; repeated DELETEs join it. */
export async function destroyDeployment(orgId: string, id: string, now: Date, actor: Actor): Promise<Started> {
  type Outcome = { joined: Started } | { deployment: DeploymentRecord; operation: OperationRecord; canceled?: OperationRecord };
  const started = await withWriteState(
    orgId,
    deploymentIdOf(id),
    async (state): Promise<Outcome> => {
      const d = foundDeployment(state, id);
      if (d.status === 'destroyed') throw apiError('DEPLOYMENT_ALREADY_DESTROYED', { id: d.id });
      if (d.status === 'destroying' && d.last_operation_id) return { joined: { deploymentId: d.id, operationId: d.last_operation_id } };
      // Half-stopped (or half-started) services are left to finish first: these cannot be canceled (decision 50).
      const stopping = hibernationInFlight(d);
      if (stopping) throw apiError('OPERATION_IN_PROGRESS', { id: d.id, operationId: stopping }, { operationId: stopping });
      const inFlight = d.last_operation_id ? await getOperation(orgId, d.last_operation_id, true) : undefined;
      const cancel =
        inFlight && !isTerminal(inFlight.status) ? { operation: inFlight, message: 'Canceled by a destroy request.' } : undefined;
      const operation = await insertOperation({
        deployment: d,
        org: state.org,
        build: (at) => queuedOperation({ org_id: orgId, type: 'deployment.destroy', resource_id: d.id, requested_at: at }),
        deploymentStatus: 'destroying',
        cancel,
        now,
        events: changeEventsBy(actor),
      });
      return { deployment: { ...d, status: 'destroying' as const, op_count: d.op_count + 1 }, operation, canceled: cancel?.operation };
    },
    requestRetries(now),
  );
  if ('joined' in started) return started.joined;
  if (started.canceled) {
    emit('operationsCanceled', { operation_type: started.canceled.type }, 1);
    await stopQuietly(started.canceled, 'Canceled by a destroy request.');
  }
  return launch(started.operation, started.deployment, actor);
}

export interface DeploymentOperationRequest extends ActorRequest {
  orgId: string;
  deploymentId: string;
  now: Date;
}

/** Inserts an operation on a ready deployment, in the write that read it. */
export async function startOperation(
  state: WriteState,
  d: DeploymentRecord,
  build: (at: string) => OperationRecord,
  now: Date,
  actor: Actor,
): Promise<{ deployment: DeploymentRecord; operation: OperationRecord }> {
  const operation = await insertOperation({ deployment: d, org: state.org, build, now, events: changeEventsBy(actor) });
  return { deployment: d, operation };
}

/**
 * DAG syncs and app users need a ready deployment (decision 20), wait for a configuration
 * update, a hibernate or a wake in flight (decisions 42, 50), and an awake deployment (decision 50). `fields`: what the operation is written with beyond its
 * type (only those given; app-users.ts gives its id, params and sealed input).
 */
export async function startOnReadyDeployment(
  req: DeploymentOperationRequest,
  type: OperationType,
  check: (d: DeploymentRecord) => void,
  fields: Partial<Pick<OperationRecord, 'id' | 'params' | 'sealed_input'>> = {},
): Promise<Started> {
  const { deployment, operation } = await withWriteState(
    req.orgId,
    deploymentIdOf(req.deploymentId),
    async (state) => {
      const d = foundDeployment(state, req.deploymentId);
      check(d);
      if (d.status !== 'ready') throw apiError('DEPLOYMENT_NOT_READY', { id: d.id, status: d.status });
      const blocking = blockingOperation(d, 'other');
      if (blocking) throw apiError('OPERATION_IN_PROGRESS', { id: d.id, operationId: blocking }, { operationId: blocking });
      if (isHibernated(d)) throw apiError('DEPLOYMENT_HIBERNATED', { id: d.id });
      return startOperation(
        state,
        d,
        (at) => queuedOperation({ org_id: req.orgId, type, resource_id: d.id, requested_at: at, ...fields }),
        req.now,
        req.actor,
      );
    },
    requestRetries(req.now),
    // Nothing read beyond the state given: operations of one type started at once commit in groups (decision 300).
    { gather: gatherAs(type) },
  );
  return launch(operation, deployment, req.actor);
}

export const startDagSync = (req: DeploymentOperationRequest) =>
  startOnReadyDeployment(req, 'dag_sync.trigger', (d) => {
    if (d.app_type !== 'airflow') throw invalidRequest(`DAG syncs apply to airflow deployments only; ${d.id} is ${d.app_type}.`);
  });

/** Decision 22. A canceled create leaves its deployment failed; other cancels leave it as it was. */
export async function cancelOperation(orgId: string, id: string, now: Date, actor: Actor): Promise<Operation> {
  const canceled = await withRetries(async () => {
    const op = await findOperation(orgId, id);
    const cancelableType = CANCELABLE_TYPES.includes(op.type);
    if (!cancelableType || isTerminal(op.status)) {
      throw apiError('OPERATION_NOT_CANCELABLE', { id: op.id, type: op.type, status: op.status, cancelableType });
    }
    let deploymentMove: { record: DeploymentRecord; to: 'failed' } | undefined;
    if (op.type === 'deployment.create') {
      const d = await getDeployment(orgId, op.resource_id, true);
      if (d?.status === 'provisioning') deploymentMove = { record: d, to: 'failed' };
    }
    const at = now.toISOString();
    const change = { status: 'canceled' as const, message: 'Canceled by request.', ended_at: at };
    if (
      !(await applyTransition({
        operation: op,
        change,
        deployment: deploymentMove,
        at,
        retries: requestRetries(now),
        events: changeEventsBy(actor),
      }))
    )
      throw new Retry();
    return { ...op, ...change };
  }, requestRetries(now));
  emit('operationsCanceled', { operation_type: canceled.type }, 1);
  await stopQuietly(canceled, 'Canceled by request.');
  return operationView(canceled);
}

/**
 * Stops the operation's workflow (so nothing waits on or asks about its job again) and
 * its job on the platform. Both are best effort: the record is already final, and every
 * workflow step writes only while its operation is not terminal.
 */
async function stopQuietly(op: OperationRecord, cause: string): Promise<void> {
  const stops: [string, Promise<void>][] = [['workflow', stopExecution(op.id, cause)]];
  if (op.job) stops.push(['platform job', hostingPlatform().cancel(op.job.handle)]);
  // A stopped update leaves the deployment on its previous configuration: the platform puts that back.
  if (op.type === 'deployment.update' && op.started_at) stops.push(['configuration restore', restoreConfig(op)]);
  const results = await Promise.allSettled(stops.map(([, p]) => p));
  results.forEach((r, i) => {
    if (r.status === 'rejected')
      logger.warn(`could not stop the ${stops[i]![0]}; its steps will find the operation ended`, {
        operation_id: op.id,
        error: r.reason as Error,
      });
  });
}
