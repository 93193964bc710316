/**
 * Finding one deployment or operation of the caller's organization by the id in a
 * path. Ids have one form (decision 5); anything else cannot exist and costs no read.
 * Another organization's record is not found, exactly as if it did not exist (decision 30).
 */

import { apiError } from '../../contract/errors.js';
import { getDeployment } from '../adapters/dynamo/deployment-reads.js';
import { getOperation } from '../adapters/dynamo/operation-reads.js';
import { getWebhook, type WebhookRecord } from '../adapters/dynamo/webhook-store.js';
import { type DeploymentRecord, UUID } from '../core/deployments.js';
import { OPERATION_ID, type OperationRecord } from '../core/operations.js';

/** The stored form of a deployment id from a path, or the 404 for one that cannot exist, without a read. */
export function deploymentIdOf(id: string): string {
  const normalized = id.toLowerCase();
  if (!UUID.test(normalized)) throw apiError('DEPLOYMENT_NOT_FOUND', { id });
  return normalized;
}

export async function findDeployment(orgId: string, id: string): Promise<DeploymentRecord> {
  const found = await getDeployment(orgId, deploymentIdOf(id), true);
  if (!found) throw apiError('DEPLOYMENT_NOT_FOUND', { id });
  return found;
}

export async function findOperation(orgId: string, id: string): Promise<OperationRecord> {
  const normalized = id.toLowerCase();
  const found = OPERATION_ID.test(normalized) ? await getOperation(orgId, normalized, true) : undefined;
  if (!found) throw apiError('OPERATION_NOT_FOUND', { id });
  return found;
}

const WEBHOOK_ID = /^wh_[0-9a-f]{32}$/;

export async function findWebhook(orgId: string, id: string): Promise<WebhookRecord> {
  const found = WEBHOOK_ID.test(id) ? await getWebhook(orgId, id) : undefined;
  if (!found) throw apiError('WEBHOOK_NOT_FOUND', { id });
  return found;
}
