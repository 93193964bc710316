/**
 * Seed-time checks, outside the measurements (counting here is what the list endpoints
 * must never do):
 *  - the organization item reads back exactly as built, and its counters add up
 *    (types and statuses sum to op_seq, deployment statuses to dep_seq);
 *  - every list partition of up to COUNT_LIMIT items is counted in full and must equal
 *    its counter (DynamoDB Local counts ~2,000 items/s, so the 50k-100k partitions of the
 *    large organization are left to the arithmetic above and the table's item count);
 *  - the table holds exactly the items written (DescribeTable ItemCount).
 */
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ddb, tableName } from '../functions/adapters/dynamo/client.js';
import { lists } from '../functions/adapters/dynamo/item-keys.js';
import { eventTypeSeqAttr, typeSeqAttr } from '../functions/adapters/dynamo/lifecycle-writes.js';
import { counter, getOrg } from '../functions/adapters/dynamo/org-reads.js';
import type { IndexName } from '../functions/adapters/dynamo/table.js';
import { DEPLOYMENT_STATUSES, EVENT_TYPES, OPERATION_STATUSES, OPERATION_TYPES } from '../functions/core/schemas.js';
import { clientFor } from '../infra/local/dynamodb-local.js';
import type { SeededOrg } from './seed.js';

const COUNT_LIMIT = 25_000;

async function count(index: IndexName, pk: string): Promise<number> {
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index,
        Select: 'COUNT',
        ExclusiveStartKey: start,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': `${index}pk` },
        ExpressionAttributeValues: { ':pk': pk },
      }),
    );
    n += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return n;
}

/** Returns a one-line summary; throws on any inconsistency. */
export async function verifyOrg(org: SeededOrg): Promise<string> {
  const o = await getOrg(org.orgId, true);
  const problems: string[] = [];
  const c = (attr: string) => counter(o, attr);
  for (const [k, v] of Object.entries(org.org)) if (o[k] !== v) problems.push(`org item ${k}: stored ${String(o[k])}, built ${String(v)}`);
  const sum = (attrs: string[]) => attrs.reduce((s, a) => s + c(a), 0);
  if (c('op_seq') !== org.operations) problems.push(`op_seq is ${c('op_seq')}, expected ${org.operations}`);
  if (sum(OPERATION_TYPES.map(typeSeqAttr)) !== c('op_seq')) problems.push('seq_<type> do not sum to op_seq');
  const byStatus = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
  if (byStatus(org.opsByStatus) !== c('op_seq')) problems.push('operations by status do not sum to op_seq');
  if (byStatus(org.deploymentsByStatus) !== c('dep_seq')) problems.push('deployments by status do not sum to dep_seq');
  if (c('evt_seq') !== org.events) problems.push(`evt_seq is ${c('evt_seq')}, expected ${org.events}`);
  if (sum(EVENT_TYPES.map(eventTypeSeqAttr)) !== c('evt_seq')) problems.push('evt_seq_<type> do not sum to evt_seq');

  const partitions: [string, IndexName, string, number][] = [
    ['operations', 'gsi1', lists.operations(org.orgId), c('op_seq')],
    ['deployments', 'gsi1', lists.deployments(org.orgId), c('dep_seq')],
    ...OPERATION_TYPES.map((t): [string, IndexName, string, number] => [
      `type=${t}`,
      'gsi2',
      lists.operationsByType(org.orgId, t),
      c(typeSeqAttr(t)),
    ]),
    ...OPERATION_STATUSES.map((s): [string, IndexName, string, number] => [
      `operations status=${s}`,
      'gsi4',
      lists.operationsByStatus(org.orgId, s),
      org.opsByStatus[s] ?? 0,
    ]),
    ...DEPLOYMENT_STATUSES.map((s): [string, IndexName, string, number] => [
      `deployments status=${s}`,
      'gsi4',
      lists.deploymentsByStatus(org.orgId, s),
      org.deploymentsByStatus[s] ?? 0,
    ]),
    ['busiest deployment', 'gsi3', lists.operationsByResource(org.orgId, org.busiest.id), org.busiest.ops],
    ['events', 'gsi1', lists.events(org.orgId), c('evt_seq')],
    ...EVENT_TYPES.map((t): [string, IndexName, string, number] => [
      `events type=${t}`,
      'gsi2',
      lists.eventsByType(org.orgId, t),
      c(eventTypeSeqAttr(t)),
    ]),
  ];
  let counted = 0;
  let lists_ = 0;
  const skipped: string[] = [];
  for (const [what, index, pk, kept] of partitions) {
    if (kept > COUNT_LIMIT) {
      skipped.push(what);
      continue;
    }
    const n = await count(index, pk);
    counted += n;
    lists_++;
    if (n !== kept) problems.push(`${what}: counted ${n}, counter says ${kept}`);
  }
  if (problems.length) throw new Error(`Seeded organization ${org.orgId} is inconsistent:\n  ${problems.join('\n  ')}`);
  return (
    `org item as built, counters add up; ${lists_} lists counted in full (${counted.toLocaleString('en-US')} items) = their counters` +
    (skipped.length ? `; not counted (too large to count quickly): ${skipped.join(', ')}` : '')
  );
}

/** DynamoDB Local's DescribeTable ItemCount, against what was written. */
export async function tableItemCount(endpoint: string): Promise<number> {
  const client = clientFor(endpoint);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName() })).finally(() => client.destroy());
  return Table?.ItemCount ?? -1;
}

/**
 * A seeded event item against one a real write put (eventWrites, through insertDeployment):
 * the same attributes, of the same types, the keys of the same form.
 */
export function verifyEventShape(real: Record<string, unknown>, seeded: Record<string, unknown>): string {
  const form = (v: unknown) =>
    String(v)
      .replace(/ORG#[^#]+/g, 'ORG#<org>')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
      .replace(/\d/g, '9');
  const problems: string[] = [];
  const keys = (o: Record<string, unknown>) => Object.keys(o).sort().join(',');
  if (keys(real) !== keys(seeded)) problems.push(`attributes differ: real ${keys(real)}; seeded ${keys(seeded)}`);
  for (const [k, v] of Object.entries(real)) {
    const s = seeded[k];
    if (typeof v !== typeof s) problems.push(`${k}: real ${typeof v}, seeded ${typeof s}`);
    else if (/pk$|sk$/.test(k) && form(v) !== form(s)) problems.push(`${k}: real ${String(v)}, seeded ${String(s)}`);
  }
  // The seeded records are in their final states (a ready deployment also has its url).
  const data = (o: Record<string, unknown>) => Object.keys((o.data as { object: Record<string, unknown> }).object);
  const lacking = data(real).filter((k) => !data(seeded).includes(k));
  if (real.type === seeded.type && lacking.length) problems.push(`the seeded data.object lacks ${lacking.join(', ')}`);
  if (problems.length) throw new Error(`Seeded event items differ from what eventWrites puts:\n  ${problems.join('\n  ')}`);
  return `a seeded ${String(seeded.type)} event has the attributes, types and key forms of the real write's (${Object.keys(real).length} attributes)`;
}

export async function verifyTable(endpoint: string, written: number): Promise<string> {
  const client = clientFor(endpoint);
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName() })).finally(() => client.destroy());
  const n = Table?.ItemCount ?? -1;
  if (n !== written) throw new Error(`The table holds ${n} items; ${written} were written.`);
  return `table holds exactly the ${written.toLocaleString('en-US')} items written`;
}
