/** Deployments: their status machine (decision 10), names (decision 6) and API view (decisions 9, 14). */
import { randomBytes, randomUUID } from 'node:crypto';
import { deploymentPath, operationPath } from '../../contract/paths.js';
import type { AppType, Deployment, DeploymentStatus, OperationType } from '../../contract/schemas.js';
import { configView, DEFAULT_APP_VERSIONS, defaultConfig, type StoredConfig } from './deployment-config.js';
import type { DeploymentHealth } from './health.js';
import { type OperationRecord, queuedOperation } from './operations.js';

export interface DeploymentRecord {
  id: string;
  org_id: string;
  name: string;
  app_type: AppType;
  status: DeploymentStatus;
  environment_id: string;
  created_at: string;
  /** When the item last changed (any write); never shown. */
  updated_at: string;
  /** What it runs, the revision that is, and when that revision was applied (decision 41). */
  config: StoredConfig;
  revision: number;
  applied_at: string;
  /** Its operations queued or running, as `<type> <id>` (so a request it blocks gets its 409 without another read, decision 42). */
  in_flight: readonly string[];
  last_operation_id: string | null;
  /** How many operations this deployment has had: the dense sequence behind the resource_id filter. */
  op_count: number;
  /** The same per operation type (resource_id and type filters together). */
  op_counts?: Partial<Record<OperationType, number>>;
  /** Its position in the organization's deployments (set by the store; never shown). */
  seq?: number;
  /** When the create succeeded, and when the destroy did: when it ran (decision 49); absent on records stored before. */
  ready_at?: string;
  destroyed_at?: string;
  /** Decision 48: the rolled-up health; absent on records stored before it, read as unknown since creation. */
  health?: DeploymentHealth;
  /** Decision 50: awake or hibernated, and the end of a manual hold; absent on records stored before it, read as awake. */
  hibernation?: Hibernation;
  /** Decision 50: when it was hibernated (the latest MAX_HIBERNATED_SPANS), `to` null while it still is: its metrics' gaps. Never shown. */
  hibernated_spans?: HibernatedSpan[];
  /** Decision 50: the next minute the scheduler visits it (a schedule's transition or a hold's end); absent: none. Never shown. */
  hibernation_due?: string;
}

export interface HibernatedSpan {
  from: string;
  to: string | null;
}

export interface Hibernation {
  state: 'awake' | 'hibernated';
  until: string | null;
}

/** Decision 50: the record's hibernation; a record stored before it is awake with no hold. */
export const hibernationStateOf = (d: Pick<DeploymentRecord, 'hibernation'>): Hibernation =>
  // In the shown order of keys: a stored map comes back in any order.
  d.hibernation ? { state: d.hibernation.state, until: d.hibernation.until ?? null } : { state: 'awake', until: null };

export const isHibernated = (d: Pick<DeploymentRecord, 'hibernation'>): boolean => hibernationStateOf(d).state === 'hibernated';

/** What a new deployment is created with (its configuration: the default unless given); the rest follows from its creation. */
export type NewDeploymentFields = Pick<DeploymentRecord, 'org_id' | 'name' | 'app_type' | 'environment_id'> & { config?: StoredConfig };

/** A new deployment, provisioning, its create operation (`operationId`) its first, last and only one in flight; revision 1. */
export function newDeploymentRecord(
  { config, ...fields }: NewDeploymentFields,
  at: string,
  operationId: string,
  id: string = randomUUID(),
): DeploymentRecord {
  return {
    id,
    ...fields,
    status: 'provisioning',
    created_at: at,
    updated_at: at,
    health: { status: 'unknown', since: at },
    hibernation: { state: 'awake', until: null },
    config: config ?? defaultConfig(fields.app_type, DEFAULT_APP_VERSIONS),
    revision: 1,
    applied_at: at,
    in_flight: [inFlightEntry({ type: 'deployment.create', id: operationId })],
    // A schedule given at creation: the scheduler first looks at it the next minute (decision 260).
    ...(config?.hibernation ? { hibernation_due: nextDueMinute(Date.parse(at)) } : {}),
    last_operation_id: operationId,
    op_count: 1,
  };
}

/** A new deployment and its create operation, queued: the two records a create writes together. */
export function newDeploymentWithOperation(
  fields: NewDeploymentFields,
  at: string,
  id: string = randomUUID(),
): { deployment: DeploymentRecord; operation: OperationRecord } {
  const operation = queuedOperation({ org_id: fields.org_id, type: 'deployment.create', resource_id: id, requested_at: at });
  return { deployment: newDeploymentRecord(fields, at, operation.id, id), operation };
}

/** The only transitions there are (decision 10). */
const TRANSITIONS: Record<DeploymentStatus, readonly DeploymentStatus[]> = {
  provisioning: ['ready', 'failed', 'destroying'],
  ready: ['destroying'],
  failed: ['destroying'],
  destroying: ['destroyed', 'failed'],
  destroyed: [],
};

/** The start of the minute after the one holding `ms` (core/hibernation.ts's nextMinute; here to keep this module's imports few). */
export const nextDueMinute = (ms: number): string => new Date((Math.floor(ms / 60_000) + 1) * 60_000).toISOString();

export const canTransition = (from: DeploymentStatus, to: DeploymentStatus): boolean => TRANSITIONS[from].includes(to);

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const autoName = (appType: AppType): string => `${appType}-${randomBytes(3).toString('hex')}`;

export const deploymentUrl = (d: Pick<DeploymentRecord, 'app_type' | 'id'>, appDomain: string): string =>
  `https://${d.app_type}.${d.id}.${appDomain}`;

/** Decision 48: the record's health; a record stored before it has been unknown since its creation. */
export const healthOf = (d: Pick<DeploymentRecord, 'health' | 'created_at'>): DeploymentHealth =>
  d.health ?? { status: 'unknown', since: d.created_at };

export function deploymentView(d: DeploymentRecord, appDomain: string): Deployment {
  return {
    id: d.id,
    name: d.name,
    app_type: d.app_type,
    status: d.status,
    ...(d.status === 'ready' ? { url: deploymentUrl(d, appDomain) } : {}),
    health: healthOf(d),
    hibernation: hibernationStateOf(d),
    environment_id: d.environment_id,
    created_at: d.created_at,
    config: configView(d.config),
    revision: d.revision,
    updated_at: d.applied_at,
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

/** An entry of `in_flight`: the operation's type and id. */
export const inFlightEntry = (op: { type: OperationType; id: string }): string => `${op.type} ${op.id}`;

/**
 * The operation in flight that a request on the deployment must wait for: any, for a
 * configuration update (and a hibernate or a wake); a `deployment.update`, a
 * `deployment.hibernate` or a `deployment.wake`, for the others (decisions 42, 50).
 */
export function blockingOperation(d: DeploymentRecord, by: 'update' | 'other'): string | undefined {
  const entries = d.in_flight.map((e) => e.split(' ') as [OperationType, string]);
  return entries.find(([type]) => by === 'update' || BLOCKING_OTHERS.includes(type))?.[1];
}

const BLOCKING_OTHERS: readonly OperationType[] = ['deployment.update', 'deployment.hibernate', 'deployment.wake'];

/** A hibernate or a wake in flight: a DELETE waits for it (decision 50). */
export function hibernationInFlight(d: DeploymentRecord): string | undefined {
  const entries = d.in_flight.map((e) => e.split(' ') as [OperationType, string]);
  return entries.find(([type]) => type === 'deployment.hibernate' || type === 'deployment.wake')?.[1];
}
