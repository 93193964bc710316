/**
 * Reading an operation's log (decision 45). Line n is item `LOG#<operation>#<n>` of the
 * organization and the operation counts its lines, so page N, oldest first, is one key
 * range of the base table: a page reads exactly the lines it returns, at any depth.
 */
import type { Pagination } from '../../../contract/schemas.js';
import { logLineKey } from '../../../contract/table/entities.js';
import type { LogLineRecord } from '../../core/operation-logs.js';
import type { OperationRecord } from '../../core/operations.js';
import type { PageRequest } from '../../core/pagination.js';
import { tableName } from './client.js';
import { queryAll } from './list-query.js';

const toLine = (item: Record<string, unknown>): LogLineRecord => ({
  sequence: Number(item.sequence),
  time: String(item.time),
  phase: item.phase as LogLineRecord['phase'],
  level: item.level as LogLineRecord['level'],
  message: String(item.message),
});

export async function listOperationLog(
  op: Pick<OperationRecord, 'org_id' | 'id' | 'log_count'>,
  { page, per_page }: PageRequest,
): Promise<{ items: LogLineRecord[]; pagination: Pagination }> {
  const total = op.log_count ?? 0;
  const pagination = { page, per_page, total, pages: Math.ceil(total / per_page) };
  const from = (page - 1) * per_page + 1;
  const to = Math.min(total, page * per_page);
  if (from > to) return { items: [], pagination };
  const first = logLineKey(op.org_id, op.id, from);
  const items = await queryAll({
    TableName: tableName(),
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': first.pk, ':from': first.sk, ':to': logLineKey(op.org_id, op.id, to).sk },
  });
  return { items: items.map(toLine), pagination };
}
