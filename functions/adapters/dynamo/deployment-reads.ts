/** Reading deployments (written by the commands in this folder: insert-deployment.ts, insert-operation.ts, apply-transition.ts). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DeploymentStatus, Pagination } from '../../../contract/schemas.js';
import { deployment, deploymentKey, opCountAttr } from '../../../contract/table/entities.js';
import { OPERATION_TYPES } from '../../../contract/vocabulary.js';
import { defaultConfig, type StoredConfig } from '../../core/deployment-config.js';
import type { DeploymentRecord, HibernatedSpan, Hibernation } from '../../core/deployments.js';
import type { DeploymentHealth } from '../../core/health.js';
import type { PageRequest } from '../../core/pagination.js';
import { config } from '../../lib/config.js';
import { ddb, tableName } from './client.js';
import { byRange } from './list-query.js';
import { counter, getOrg } from './org-reads.js';
import { byStatus } from './status-counts.js';

/**
 * A stored item as the record it holds (the item also carries keys and index attributes).
 * An item stored before configurations (decision 41) reads as revision 1 with the default
 * one, and with no operation in flight that it knows of.
 */
export function toDeployment(item: Record<string, unknown>): DeploymentRecord {
  const appType = item.app_type as DeploymentRecord['app_type'];
  return {
    id: String(item.id),
    org_id: String(item.org_id),
    name: String(item.name),
    app_type: appType,
    status: item.status as DeploymentRecord['status'],
    environment_id: String(item.environment_id),
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
    config: (item.config as StoredConfig | undefined) ?? defaultConfig(appType, config().appVersions),
    revision: Number(item.revision ?? 1),
    applied_at: String(item.applied_at ?? item.created_at),
    in_flight: item.in_flight instanceof Set ? [...(item.in_flight as Set<string>)] : [],
    last_operation_id: typeof item.last_operation_id === 'string' ? item.last_operation_id : null,
    op_count: Number(item.op_count ?? 0),
    op_counts: Object.fromEntries(
      OPERATION_TYPES.flatMap((t) => (item[opCountAttr(t)] === undefined ? [] : [[t, Number(item[opCountAttr(t)])]])),
    ),
    seq: Number(item.seq),
    ...(item.health ? { health: item.health as DeploymentHealth } : {}),
    ...(item.hibernation ? { hibernation: item.hibernation as Hibernation } : {}),
    ...(typeof item.hibernation_due === 'string' ? { hibernation_due: item.hibernation_due } : {}),
    ...(Array.isArray(item.hibernated_spans) ? { hibernated_spans: item.hibernated_spans as HibernatedSpan[] } : {}),
    ...(typeof item.ready_at === 'string' ? { ready_at: item.ready_at } : {}),
    ...(typeof item.destroyed_at === 'string' ? { destroyed_at: item.destroyed_at } : {}),
  };
}

export async function getDeployment(orgId: string, id: string, consistent = false): Promise<DeploymentRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: deploymentKey(orgId, id), ConsistentRead: consistent }));
  return Item ? toDeployment(Item) : undefined;
}

export async function listDeployments(
  orgId: string,
  req: PageRequest & { status?: DeploymentStatus },
): Promise<{ items: DeploymentRecord[]; pagination: Pagination }> {
  const list = deployment.indexes.deployments;
  const page = req.status
    ? await byStatus(deployment, list, { org_id: orgId, status: req.status }, req)
    : await byRange(list, { org_id: orgId }, counter(await getOrg(orgId, true), 'dep_seq'), req);
  return { items: page.items.map(toDeployment), pagination: page.pagination };
}
