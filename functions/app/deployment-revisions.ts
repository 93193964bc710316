/**
 * A deployment's revisions (decision 42): the configurations it had, one per update
 * applied. Reads only: listing them and finding one needs nothing of the secrets' keys.
 */

import { apiError } from '../../contract/errors.js';
import type { Pagination } from '../../contract/schemas.js';
import { getRevision, listRevisions } from '../adapters/dynamo/revision-reads.js';
import type { DeploymentRecord } from '../core/deployments.js';
import type { PageRequest } from '../core/pagination.js';
import { type RevisionRecord, revisionNumber } from '../core/revisions.js';
import { findDeployment } from './lookups.js';

/** Revision `raw` of the deployment, or REVISION_NOT_FOUND. */
export async function findRevision(d: DeploymentRecord, raw: string): Promise<RevisionRecord> {
  const n = revisionNumber(raw);
  const found = n !== undefined && n <= d.revision ? await getRevision(d, n) : undefined;
  if (!found) throw apiError('REVISION_NOT_FOUND', { id: d.id, revision: raw });
  return found;
}

/** GET /deployments/{id}/revisions/{n}. */
export async function findDeploymentRevision(orgId: string, deploymentId: string, raw: string): Promise<RevisionRecord> {
  return findRevision(await findDeployment(orgId, deploymentId), raw);
}

/** GET /deployments/{id}/revisions: newest first; revision n is the n-th, so a page is a key range. */
export async function deploymentRevisions(
  orgId: string,
  deploymentId: string,
  page: PageRequest,
): Promise<{ items: RevisionRecord[]; pagination: Pagination }> {
  return listRevisions(await findDeployment(orgId, deploymentId), page);
}
