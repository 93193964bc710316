/**
 * Operations: their phases (decision 17), their life cycle (docs/api.md, section 7.2), and how a
 * stored record reads in the API (decisions 18-19).
 */
import { randomUUID } from 'node:crypto';
import { errorView, type OperationError } from '../../contract/errors.js';
import { deploymentPath, operationPath } from '../../contract/paths.js';
import type { Operation, OperationStatus, OperationType, Phase } from '../../contract/schemas.js';
import { isTerminal, PHASES } from '../../contract/vocabulary.js';
import type { ConfigChange, StoredConfig } from './deployment-config.js';

// The work phases a workflow runs, in order, and the phase a success ends in, and which
// statuses are terminal: the vocabulary's (contract/vocabulary.ts, decision 211).
export { isTerminal, PHASES };

export const PHASE_MESSAGES: Record<Phase, string> = {
  queued: 'Waiting to start.',
  provisioning_db: 'Provisioning the database.',
  provisioning_infrastructure: 'Provisioning the application infrastructure.',
  ready: 'The deployment is ready.',
  destroying_infrastructure: 'Destroying the application infrastructure.',
  destroying_db: 'Destroying the database.',
  destroyed: 'The deployment has been destroyed.',
  syncing_dags: 'Synchronising DAGs.',
  synced: 'DAGs are synchronised.',
  provisioning_user: 'Provisioning the application user.',
  provisioned: 'The application user is provisioned.',
  applying_config: 'Applying the new configuration.',
  restarting_services: 'Restarting the services with the new configuration.',
  updated: 'The configuration is updated.',
  stopping_services: 'Stopping the application for hibernation.',
  hibernated: 'The deployment is hibernated.',
  starting_services: 'Starting the application after hibernation.',
  awake: 'The deployment is awake.',
};

/**
 * A destroy cannot be canceled (it would strand half-deleted resources; decision 22), nor can a
 * hibernate or a wake (decision 50: half-stopped services are neither state).
 */
export const CANCELABLE_TYPES: readonly OperationType[] = [
  'deployment.create',
  'dag_sync.trigger',
  'app_user.provision',
  'deployment.update',
];

export const newOperationId = (): string => `op_${randomUUID()}`;
export const OPERATION_ID = /^op_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The stored record of an operation (plus the index attributes the adapter adds). */
export interface OperationRecord {
  id: string;
  org_id: string;
  type: OperationType;
  status: OperationStatus;
  phase: Phase;
  message: string;
  resource_id: string;
  requested_at: string;
  started_at?: string;
  ended_at?: string;
  error?: OperationError;
  result?: Record<string, unknown>;
  /** Inputs the workflow needs beyond the deployment (e.g. the user to provision). */
  params?: Record<string, unknown>;
  /**
   * Inputs no record may show (an app user's password, decision 51), each sealed for
   * `operation-input` on this operation: the phase steps open them for the driver; removed
   * when the operation ends (decision 256).
   */
  sealed_input?: Record<string, string>;
  /** deployment.update: the configuration to apply (secrets sealed), what it changes, and the revision a rollback restores. */
  update?: { config: StoredConfig; changes: ConfigChange[]; rollback_of: number | null };
  /**
   * The current phase's job on the platform, and when the phase must be done by;
   * `log_cursor`: where the driver's log lines stored so far end (core/platform.ts).
   */
  job?: { phase: Phase; handle: string; deadline: string; limit_seconds: number; log_cursor?: string };
  /** Where it sits in each dense list it belongs to (set by the store; never shown). */
  positions?: OperationPositions;
  /** Its log (decision 45): how many lines it has, and the time of the last one (absent: none yet). */
  log_count?: number;
  log_at?: string;
}

/** What a transition of an operation may change. */
export type OperationChange = Partial<
  Pick<OperationRecord, 'status' | 'phase' | 'message' | 'started_at' | 'ended_at' | 'error' | 'result' | 'job'>
>;

/** 1-based positions in the organization's operations, its type's, its deployment's, and its deployment's of its type. */
export interface OperationPositions {
  all: number;
  type: number;
  resource: number;
  resourceType: number;
}

export function operationView(op: OperationRecord): Operation {
  return {
    id: op.id,
    type: op.type,
    status: op.status,
    progress: { phase: op.phase, message: op.message },
    resource: { type: 'deployment', id: op.resource_id },
    requested_at: op.requested_at,
    ...(op.started_at ? { started_at: op.started_at } : {}),
    ...(op.ended_at ? { ended_at: op.ended_at } : {}),
    ...(op.status === 'failed' && op.error ? { error: errorView(op.error, op.phase) } : {}),
    ...(op.status === 'succeeded' && op.result ? { result: op.result } : {}),
    ...(op.update ? { changes: op.update.changes } : {}),
    links: { self: operationPath(op.id), resource: deploymentPath(op.resource_id) },
  };
}

/** The workflow's input: what the state machine passes to every step. */
export interface WorkflowInput {
  org_id: string;
  operation_id: string;
  deployment_id: string;
  type: OperationType;
  phases: readonly Phase[];
}

/** The phases still to run: all of them for a new operation, else from the one it is in (phases are idempotent). */
export const workflowInput = (op: OperationRecord): WorkflowInput => {
  const work = PHASES[op.type].work;
  return {
    org_id: op.org_id,
    operation_id: op.id,
    deployment_id: op.resource_id,
    type: op.type,
    phases: work.slice(Math.max(0, work.indexOf(op.phase))),
  };
};

/** A fresh operation, queued. */
export function queuedOperation(
  fields: Pick<OperationRecord, 'org_id' | 'type' | 'resource_id' | 'requested_at' | 'params' | 'update' | 'sealed_input'> & {
    /** Given when something was sealed for the operation before it was written. */
    id?: string;
  },
): OperationRecord {
  return { id: newOperationId(), status: 'queued', phase: 'queued', message: PHASE_MESSAGES.queued!, ...fields };
}
