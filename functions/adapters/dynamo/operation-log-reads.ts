import type { LogLineRecord } from '../../core/operation-logs.js';
import type { OperationRecord } from '../../core/operations.js';
import type { PageRequest } from '../../core/pagination.js';
import type { Pagination } from '../../core/schemas.js';
import { tableName } from './client.js';
import { logLineKey } from './entities.js';
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
