/**
 * Creating a deployment: one transaction of the organization (lock, counters, the creation
 * quota (decision 32), exact because it is checked under the same lock), the deployment,
 * its deployment.create operation, their status counts, the name reservation (decision 6)
 * and their events.
 */

import { apiError } from '../../../contract/errors.js';
import { typeSeqAttr } from '../../../contract/table/entities.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import type { OperationPositions, OperationRecord } from '../../core/operations.js';
import { type Limits, limitExceeded, windowsAt } from '../../core/rate-limits.js';
import { type ChangeEvents, eventWrites } from './event-log.js';
import { deploymentCountedIn, deploymentItem, nameItem, operationCountedIn, operationItem, revisionItem } from './items.js';
import { type Item, num, orgAfter, orgUpdate, putNew, remember, snapshotOf } from './org-lock.js';
import { StatusCountChanges } from './status-counts.js';
import { Retry, TransactionRefused, transact } from './transact.js';

export interface NewDeployment {
  orgId: string;
  /** The organization item as last read (withWriteState). */
  org: Item;
  /** The records, stamped with the instant the transaction will commit them at. */
  build(at: string): { deployment: DeploymentRecord; operation: OperationRecord };
  limits: Limits;
  /** When the request arrived; each attempt stamps its own, later, instant. */
  now: Date;
  events: ChangeEvents;
}

/** One attempt; throws Retry when another write to the organization came first. */
export async function insertDeployment(req: NewDeployment): Promise<{ deployment: DeploymentRecord; operation: OperationRecord }> {
  // The quota window is the one this attempt commits in (contention can make attempts late).
  const now = new Date(Math.max(Date.now(), req.now.getTime()));
  const snap = snapshotOf(req.org, now);
  const hour = windowsAt(now).hourStart;
  const created = num(snap.item, 'create_hour') === hour ? num(snap.item, 'create_count') : 0;
  if (created >= req.limits.createsPerHour) throw limitExceeded('creations', req.limits, now);

  const built = req.build(snap.at);
  const depSeq = num(snap.item, 'dep_seq') + 1;
  const positions: OperationPositions = {
    all: num(snap.item, 'op_seq') + 1,
    type: num(snap.item, typeSeqAttr(built.operation.type)) + 1,
    resource: 1,
    resourceType: 1,
  };
  const deployment: DeploymentRecord = { ...built.deployment, seq: depSeq, op_counts: { [built.operation.type]: 1 } };
  const operation: OperationRecord = { ...built.operation, positions };
  const counts = new StatusCountChanges()
    .moveIn(deploymentCountedIn(deployment), undefined, deployment.status)
    .moveIn(operationCountedIn(operation), undefined, operation.status);
  const events = eventWrites(req.orgId, snap, [req.events.deployment(undefined, deployment), req.events.operation(undefined, operation)]);
  const orgSet: Item = {
    dep_seq: depSeq,
    op_seq: positions.all,
    [typeSeqAttr(operation.type)]: positions.type,
    create_hour: hour,
    create_count: created + 1,
    ...events.set,
  };
  const items = {
    org: orgUpdate(req.orgId, snap, orgSet),
    deployment: putNew(deploymentItem(deployment, depSeq)),
    operation: putNew(operationItem(operation, positions)),
    ...counts.items(),
    // The name item exists while a deployment that is not destroyed holds the name (decision 6).
    name: putNew(nameItem(req.orgId, deployment.name, deployment.id)),
    // Revision 1 is the configuration it is created with (decision 43).
    revision: putNew(
      revisionItem({
        org_id: req.orgId,
        deployment_id: deployment.id,
        revision: 1,
        config: deployment.config,
        created_at: deployment.created_at,
        operation_id: operation.id,
        rollback_of: null,
      }),
    ),
    ...events.items,
  };
  try {
    await transact(items);
  } catch (e) {
    if (!(e instanceof TransactionRefused)) throw e;
    if (e.failed.has('name')) throw apiError('DEPLOYMENT_NAME_TAKEN', { name: deployment.name });
    throw new Retry(e.current);
  }
  remember(req.orgId, orgAfter(req.orgId, snap, orgSet), deployment);
  return { deployment, operation };
}
