/**
 * Items as the write path puts them (and the benchmark's seed, attribute for attribute):
 * the core's records with their keys and index attributes, as the item types' declarations
 * (contract/table/entities.ts) build them.
 */

import { apiKey, deployment, event, nameKey, opCountAttr, operation, revisionKey, webhook } from '../../../contract/table/entities.js';
import type { ApiKeyRecord } from '../../core/api-keys.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import type { OperationPositions, OperationRecord } from '../../core/operations.js';
import type { RevisionRecord } from '../../core/revisions.js';

type Item = Record<string, unknown>;

export function deploymentItem(d: DeploymentRecord, seq: number): Item {
  const { op_counts = {}, in_flight, ...record } = d;
  // A string set: operations join and leave it in their own writes (ADD, DELETE) without reading it.
  const values = { ...record, ...(in_flight.length ? { in_flight: new Set(in_flight) } : {}), seq };
  const counts = Object.fromEntries(Object.entries(op_counts).map(([t, n]) => [opCountAttr(t), n]));
  return { ...deployment.key(values), ...values, ...counts, ...deployment.indexKeys(values) };
}

/** An operation's attributes with its positions in its dense lists. */
function operationValues(op: OperationRecord, p: OperationPositions): Item {
  const { positions: _, ...record } = op;
  return { ...record, seq: p.all, type_seq: p.type, res_seq: p.resource, res_type_seq: p.resourceType };
}

export function operationItem(op: OperationRecord, p: OperationPositions): Item {
  const values = operationValues(op, p);
  return { ...operation.key(values), ...values, ...operation.indexKeys(values) };
}

/** The dense lists an operation is counted in by status, with its position in each. */
export function operationCountedIn(op: OperationRecord): [list: string, position: number][] {
  if (!op.positions) throw new Error(`operation ${op.id} was not read with its list positions`);
  return operation.countedIn(operationValues(op, op.positions));
}

/** The one dense list a deployment is counted in by status: the organization's deployments. */
export function deploymentCountedIn(d: DeploymentRecord): [list: string, position: number][] {
  if (d.seq === undefined) throw new Error(`deployment ${d.id} was not read with its list position`);
  return deployment.countedIn({ ...d });
}

export function eventItem(
  orgId: string,
  e: {
    id: string;
    type: string;
    sequence: number;
    typeSequence: number;
    createdAt: string;
    actor: unknown;
    data: unknown;
    resourceId: string;
  },
): Item {
  const values = {
    id: e.id,
    type: e.type,
    sequence: e.sequence,
    created_at: e.createdAt,
    actor: e.actor,
    data: e.data,
    resource_id: e.resourceId,
  };
  const keys = { ...values, org_id: orgId, type_sequence: e.typeSequence };
  return { ...event.key(keys), ...values, ...event.indexKeys(keys) };
}

export const revisionItem = (r: RevisionRecord): Item => ({ ...revisionKey(r.org_id, r.deployment_id, r.revision), ...r });

export const nameItem = (orgId: string, name: string, deploymentId: string): Item => ({
  ...nameKey(orgId, name),
  deployment_id: deploymentId,
  name,
});

export function apiKeyItem(record: ApiKeyRecord): Item {
  const values = { ...record };
  return { ...apiKey.key(values), ...values, ...apiKey.indexKeys(values) };
}

export const webhookItem = (w: { org_id: string; id: string; created_at: string }): Item => ({
  ...webhook.key(w),
  ...w,
  ...webhook.indexKeys(w),
});
