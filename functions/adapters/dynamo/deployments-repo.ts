/** Reading deployments (writes are in lifecycle-repo.ts). */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DeploymentRecord } from '../../core/deployments.js';
import type { PageRequest } from '../../core/pagination.js';
import type { DeploymentStatus, Pagination } from '../../core/schemas.js';
import { ddb, tableName } from './client.js';
import { deploymentKey, lists } from './keys.js';
import { depCounter } from './lifecycle-repo.js';
import { byOffset, byRange } from './list-query.js';
import { counter, getOrg } from './orgs-repo.js';

const FIELDS = [
  'id',
  'org_id',
  'name',
  'app_type',
  'status',
  'environment_id',
  'created_at',
  'updated_at',
  'last_operation_id',
  'op_count',
] as const;

export function toDeployment(item: Record<string, unknown>): DeploymentRecord {
  return Object.fromEntries(FIELDS.map((f) => [f, item[f] ?? null])) as unknown as DeploymentRecord;
}

export async function getDeployment(orgId: string, id: string, consistent = false): Promise<DeploymentRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: deploymentKey(orgId, id), ConsistentRead: consistent }));
  return Item ? toDeployment(Item) : undefined;
}

export async function listDeployments(
  orgId: string,
  req: PageRequest & { status?: DeploymentStatus },
): Promise<{ items: DeploymentRecord[]; pagination: Pagination }> {
  const org = await getOrg(orgId, true);
  const page = req.status
    ? await byOffset('gsi4', lists.deploymentsByStatus(orgId, req.status), counter(org, depCounter(req.status)), req)
    : await byRange('gsi1', lists.deployments(orgId), counter(org, 'dep_seq'), req);
  return { items: page.items.map(toDeployment), pagination: page.pagination };
}
