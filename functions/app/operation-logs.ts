/** An operation's log as a list (decision 45): the operation's own organization only, as every lookup. */

import type { Pagination } from '../../contract/schemas.js';
import { listOperationLog } from '../adapters/dynamo/operation-log-reads.js';
import type { LogLineRecord } from '../core/operation-logs.js';
import type { PageRequest } from '../core/pagination.js';
import { findOperation } from './lookups.js';

export async function operationLog(
  orgId: string,
  id: string,
  req: PageRequest,
): Promise<{ items: LogLineRecord[]; pagination: Pagination }> {
  return listOperationLog(await findOperation(orgId, id), req);
}
