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
import { eventTypeSeqAttr, INDEX, typeSeqAttr } from '../contract/table/entities.js';
import type { NamedIndex } from '../contract/table/entity.js';
import { DEPLOYMENT_STATUSES, EVENT_TYPES, OPERATION_STATUSES, OPERATION_TYPES } from '../contract/vocabulary.js';
import { ddb, tableName } from '../functions/adapters/dynamo/client.js';
import { counter, getOrg } from '../functions/adapters/dynamo/org-reads.js';
import { clientFor } from '../local/dynamodb-local.js';
import type { SeededOrg } from './seed.js';

const COUNT_LIMIT = 25_000;

async function count(index: NamedIndex, values: Record<string, unknown>): Promise<number> {
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index.physical,
        Select: 'COUNT',
        ExclusiveStartKey: start,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': index.pkAttr },
        ExpressionAttributeValues: { ':pk': index.pk.build(values) },
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

  const org_id = org.orgId;
  type Counted = [string, NamedIndex, Record<string, unknown>, number];
  const partitions: Counted[] = [
    ['operations', INDEX.operations, { org_id }, c('op_seq')],
    ['deployments', INDEX.deployments, { org_id }, c('dep_seq')],
    ...OPERATION_TYPES.map((type): Counted => [`type=${type}`, INDEX.opsByType, { org_id, type }, c(typeSeqAttr(type))]),
    ...OPERATION_STATUSES.map(
      (status): Counted => [`operations status=${status}`, INDEX.opsByStatus, { org_id, status }, org.opsByStatus[status] ?? 0],
    ),
    ...DEPLOYMENT_STATUSES.map(
      (status): Counted => [
        `deployments status=${status}`,
        INDEX.deploymentsByStatus,
        { org_id, status },
        org.deploymentsByStatus[status] ?? 0,
      ],
    ),
    ['busiest deployment', INDEX.opsByResource, { org_id, resource_id: org.busiest.id }, org.busiest.ops],
    ['events', INDEX.events, { org_id }, c('evt_seq')],
    ...EVENT_TYPES.map((type): Counted => [`events type=${type}`, INDEX.eventsByType, { org_id, type }, c(eventTypeSeqAttr(type))]),
  ];
  let counted = 0;
  let lists_ = 0;
  const skipped: string[] = [];
  for (const [what, index, values, kept] of partitions) {
    if (kept > COUNT_LIMIT) {
      skipped.push(what);
      continue;
    }
    const n = await count(index, values);
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
