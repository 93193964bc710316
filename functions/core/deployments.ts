/** Deployments: their status machine (decision 10), names (decision 6) and API view (decisions 9, 14). */
import { randomBytes, randomUUID } from 'node:crypto';
import { type OperationRecord, queuedOperation } from './operations.js';
import { deploymentPath, operationPath } from './paths.js';
import type { AppType, Deployment, DeploymentStatus, OperationType } from './schemas.js';

export interface DeploymentRecord {
  id: string;
  org_id: string;
  name: string;
  app_type: AppType;
  status: DeploymentStatus;
  environment_id: string;
  created_at: string;
  updated_at: string;
  last_operation_id: string | null;
  /** How many operations this deployment has had: the dense sequence behind the resource_id filter. */
  op_count: number;
  /** The same per operation type (resource_id and type filters together). */
  op_counts?: Partial<Record<OperationType, number>>;
  /** Its position in the organization's deployments (set by the store; never shown). */
  seq?: number;
}

/** What a new deployment is created with; the rest follows from its creation. */
export type NewDeploymentFields = Pick<DeploymentRecord, 'org_id' | 'name' | 'app_type' | 'environment_id'>;

/** A new deployment, provisioning, its create operation (`operationId`) its first and last. */
export function newDeploymentRecord(fields: NewDeploymentFields, at: string, operationId: string, id = randomUUID()): DeploymentRecord {
  return { id, ...fields, status: 'provisioning', created_at: at, updated_at: at, last_operation_id: operationId, op_count: 1 };
}

/** A new deployment and its create operation, queued: the two records a create writes together. */
export function newDeploymentWithOperation(
  fields: NewDeploymentFields,
  at: string,
): { deployment: DeploymentRecord; operation: OperationRecord } {
  const id = randomUUID();
  const operation = queuedOperation({ org_id: fields.org_id, type: 'deployment.create', resource_id: id, requested_at: at });
  return { deployment: newDeploymentRecord(fields, at, operation.id, id), operation };
}

/** Decision 10: the only transitions there are. */
const TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  provisioning: ['ready', 'failed', 'destroying'],
  ready: ['destroying'],
  failed: ['destroying'],
  destroying: ['destroyed', 'failed'],
  destroyed: [],
};

export const canTransition = (from: DeploymentStatus, to: DeploymentStatus): boolean => TRANSITIONS[from].includes(to);

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const autoName = (appType: AppType): string => `${appType}-${randomBytes(3).toString('hex')}`;

export const deploymentUrl = (d: Pick<DeploymentRecord, 'app_type' | 'id'>, appDomain: string): string =>
  `https://${d.app_type}.${d.id}.${appDomain}`;

export function deploymentView(d: DeploymentRecord, appDomain: string): Deployment {
  return {
    id: d.id,
    name: d.name,
    app_type: d.app_type,
    status: d.status,
    ...(d.status === 'ready' ? { url: deploymentUrl(d, appDomain) } : {}),
    environment_id: d.environment_id,
    created_at: d.created_at,
    links: { self: deploymentPath(d.id), operation: d.last_operation_id ? operationPath(d.last_operation_id) : null },
  };
}

/**
 * How a finished operation moves its deployment (decision 10); DAG syncs and user
 * provisioning leave it as it is. The move holds only from the expected status.
 */
const AFTER: Record<'succeeded' | 'failed', Partial<Record<OperationType, [DeploymentStatus, DeploymentStatus]>>> = {
  succeeded: { 'deployment.create': ['provisioning', 'ready'], 'deployment.destroy': ['destroying', 'destroyed'] },
  failed: { 'deployment.create': ['provisioning', 'failed'], 'deployment.destroy': ['destroying', 'failed'] },
};

export function deploymentMoveAfter(outcome: 'succeeded' | 'failed', type: OperationType, d: DeploymentRecord) {
  const rule = AFTER[outcome][type];
  return rule && d.status === rule[0] ? { record: d, to: rule[1] } : undefined;
}
