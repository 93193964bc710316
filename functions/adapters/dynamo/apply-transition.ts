/**
 * Moving an operation (and its deployment): one transaction of the operation, the
 * deployment's move, their status counts, a destroyed deployment's name freed, and, when a
 * client can see the change, the organization's lock and the events.
 */
import type { DeploymentRecord } from '../../core/deployments.js';
import type { OperationRecord } from '../../core/operations.js';
import type { DeploymentStatus } from '../../core/schemas.js';
import { tableName } from './client.js';
import { deployment, deploymentCountedIn, deploymentKey, nameKey, operationCountedIn } from './entities.js';
import { type ChangeEvents, eventWrites } from './event-log.js';
import { type OperationChange, operationUpdate } from './operation-update.js';
import { orgAfter, orgUpdate, remember, snapshotOf, withWriteState } from './org-lock.js';
import { StatusCountChanges } from './status-counts.js';
import { Retry, type RetryPolicy, type TransactItem, TransactionRefused, transact, updateParts, withCondition } from './transact.js';

export type { OperationChange };

export interface Transition {
  operation: OperationRecord;
  change: OperationChange;
  /** The deployment's move, if any: it holds only if the deployment is still in `from`. */
  deployment?: { record: DeploymentRecord; to: DeploymentStatus };
  at: string;
  /** How long to keep retrying the organization's lock. */
  retries: RetryPolicy;
  events: ChangeEvents;
}

/**
 * Applies a transition if the operation (and deployment) are still as read.
 * Returns false when they were not: someone else moved them first.
 */
export async function applyTransition(t: Transition): Promise<boolean> {
  const op = t.operation;
  const counts = new StatusCountChanges();
  if (t.change.status && t.change.status !== op.status) counts.moveIn(operationCountedIn(op), op.status, t.change.status);
  const items: Record<string, TransactItem> = { operation: operationUpdate(op, t.change) };
  const changes = [t.events.operation(op, { ...op, ...t.change })];
  if (t.deployment) {
    const { record: d, to } = t.deployment;
    counts.moveIn(deploymentCountedIn(d), d.status, to);
    items.deployment = {
      Update: {
        TableName: tableName(),
        Key: deploymentKey(d.org_id, d.id),
        ...withCondition(
          updateParts({ status: to, ...deployment.statusIndexKeys({ ...d }, to), updated_at: t.at }),
          '#st = :from',
          { '#st': 'status' },
          { ':from': d.status },
        ),
      },
    };
    changes.push(t.events.deployment(d, { ...d, status: to, updated_at: t.at }));
    // A destroyed deployment frees its name (decision 6).
    if (to === 'destroyed') {
      items.name = {
        Delete: {
          TableName: tableName(),
          Key: nameKey(d.org_id, d.name),
          ConditionExpression: 'attribute_not_exists(pk) OR deployment_id = :id',
          ExpressionAttributeValues: { ':id': d.id },
        },
      };
    }
  }
  Object.assign(items, counts.items());
  const visible = Object.keys(items).length > 1 || changes.some((e) => e !== undefined);
  // A change no client sees (the phase's job) writes the operation alone.
  if (!visible) return commitTransition(items);
  // The organization's lock numbers the events; losing it to another write only means starting again from it.
  return withWriteState(
    op.org_id,
    undefined,
    async ({ org }) => {
      const snap = snapshotOf(org, new Date(t.at));
      const events = eventWrites(op.org_id, snap, changes);
      const committed = await commitTransition({ ...items, org: orgUpdate(op.org_id, snap, events.set), ...events.items });
      if (committed)
        remember(
          op.org_id,
          orgAfter(op.org_id, snap, events.set),
          t.deployment && { ...t.deployment.record, status: t.deployment.to, updated_at: t.at },
        );
      return committed;
    },
    t.retries,
  );
}

/** True when committed, false when the operation or deployment moved first; losing only the org's lock retries. */
async function commitTransition(items: Record<string, TransactItem>): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (e) {
    if (!(e instanceof TransactionRefused)) throw e;
    if ([...e.failed].some((name) => name !== 'org')) return false;
    throw new Retry(e.current);
  }
}
