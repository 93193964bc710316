/**
 * POST /deployments/{id}/hibernate and /wake (decision 50), and the scheduler's transitions:
 * checked in the contract's order (the hold's `until`, 404, not ready, already in the asked
 * state, an operation in progress), then a `deployment.hibernate` or `deployment.wake`
 * operation written with the deployment's hold in one transaction and its workflow started.
 * The state itself changes when the operation succeeds (workflow-steps.ts).
 */

import { apiError, invalidRequest } from '../../contract/errors.js';
import type { Deployment } from '../../contract/schemas.js';
import { writeHibernation } from '../adapters/dynamo/hibernation-store.js';
import { insertOperation } from '../adapters/dynamo/insert-operation.js';
import { type Gatherer, withWriteState } from '../adapters/dynamo/org-lock.js';
import { Retry, type RetryPolicy, requestRetries } from '../adapters/dynamo/transact.js';
import { blockingOperation, type DeploymentRecord, deploymentView, hibernationStateOf } from '../core/deployments.js';
import { canonicalTime, HIBERNATION_OPERATION, type HibernationKind, holdIssues, nextMinute, TARGET_STATE } from '../core/hibernation.js';
import { queuedOperation } from '../core/operations.js';
import { config } from '../lib/config.js';
import { changeEventsBy } from './change-events.js';
import { type DeploymentOperationRequest, foundDeployment, launch, type Started } from './deployment-commands.js';
import { deploymentIdOf } from './lookups.js';

export interface HibernationRequest extends DeploymentOperationRequest {
  kind: HibernationKind;
  /** The end of the manual hold (decision 50); absent: a hold that ends at the next scheduled transition. */
  until?: string;
  /**
   * A scheduled transition: no hold, and the deployment's `until` stays as it is. `seen` is
   * the record the scheduler decided from (its index's copy, read eventually consistent):
   * the operation is written only while the deployment is still that record; `next` (the
   * scheduler's next visit) is written with the operation, a write the visit saves.
   */
  scheduled?: { seen: Pick<DeploymentRecord, 'updated_at'>; next: string | null };
  /** The scheduler's transitions of one organization commit together (decision 300); a request's do not. */
  gather?: Gatherer;
  /** How long the write may wait and retry: a request's budget from its arrival unless given. */
  retries?: RetryPolicy;
}

/** The deployment changed since the scheduler found it: nothing was written, the scheduler reads it again. */
export class ChangedSinceFound extends Error {}

export type HibernationAnswer = { unchanged: Deployment } | { started: Started };

/**
 * A manual request's hold: its `until` (null without one), and the scheduler's next visit
 * no later than the next minute, where it plans around the hold (decision 260).
 */
function holdFields(d: DeploymentRecord, until: string | null, now: Date) {
  const soon = nextMinute(now.getTime());
  const due = until === null ? {} : { hibernation_due: d.hibernation_due && d.hibernation_due < soon ? d.hibernation_due : soon };
  return { hibernation: { state: hibernationStateOf(d).state, until }, ...due };
}

export async function requestHibernation(req: HibernationRequest): Promise<HibernationAnswer> {
  const issues = holdIssues(req.until, req.now.getTime());
  if (issues.length) throw invalidRequest('The hold is invalid.', issues);
  const until = req.until === undefined ? null : canonicalTime(req.until);
  const events = changeEventsBy(req.actor);
  let mismatches = 0;
  const outcome = await withWriteState(
    req.orgId,
    deploymentIdOf(req.deploymentId),
    async (
      state,
    ): Promise<
      { unchanged: DeploymentRecord } | { deployment: DeploymentRecord; operation: Awaited<ReturnType<typeof insertOperation>> }
    > => {
      const d = foundDeployment(state, req.deploymentId);
      const seen = req.scheduled?.seen;
      if (seen && d.updated_at !== seen.updated_at) {
        // The state given may be this process's memory of its last write rather than the table:
        // read once before concluding; the transaction's condition catches a memory that is behind.
        if (++mismatches === 1) throw new Retry();
        throw new ChangedSinceFound();
      }
      if (d.status !== 'ready') throw apiError('DEPLOYMENT_NOT_READY', { id: d.id, status: d.status });
      const current = hibernationStateOf(d);
      const hold = req.scheduled ? undefined : holdFields(d, until, req.now);
      const next = req.scheduled?.next;
      if (current.state === TARGET_STATE[req.kind]) {
        // Already there: no operation, but a manual request's hold is still recorded.
        if (!hold || current.until === until) return { unchanged: d };
        const after = await writeHibernation(state.org, d, hold, events, req.now);
        if (!after) throw new Retry();
        return { unchanged: after };
      }
      const blocking = blockingOperation(d, 'update');
      if (blocking) throw apiError('OPERATION_IN_PROGRESS', { id: d.id, operationId: blocking }, { operationId: blocking });
      const operation = await insertOperation({
        deployment: d,
        org: state.org,
        build: (at) => queuedOperation({ org_id: d.org_id, type: HIBERNATION_OPERATION[req.kind], resource_id: d.id, requested_at: at }),
        now: req.now,
        events,
        ...(hold ? { deploymentFields: hold } : next ? { deploymentFields: { hibernation_due: next } } : {}),
        ...(seen ? { unchangedSince: seen.updated_at } : {}),
      });
      return { deployment: d, operation };
    },
    req.retries ?? requestRetries(req.now),
    req.gather ? { gather: req.gather } : {},
  );
  if ('unchanged' in outcome) return { unchanged: deploymentView(outcome.unchanged, config().appDomain) };
  return { started: await launch(outcome.operation, outcome.deployment, req.actor) };
}
