/**
 * The table's item types as declared in contract/table/entities.ts: the items
 * the builders make (pinned attribute for attribute: the table's contents must not move
 * under a refactor), the partitions the grants reach, and docs/data-model.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  authFailureKey,
  deployment,
  ENTITIES,
  eventKey,
  INDEX,
  operation,
  PARTITIONS,
  statusCounts,
  statusCountsKey,
} from '../../contract/table/entities.js';
import { INDEXES } from '../../contract/table/table.js';
import {
  deploymentCountedIn,
  deploymentItem,
  eventItem,
  operationCountedIn,
  operationItem,
} from '../../functions/adapters/dynamo/items.js';
import type { DeploymentRecord } from '../../functions/core/deployments.js';
import type { OperationRecord } from '../../functions/core/operations.js';
import { FUNCTION_ACCESS, leadingKeyPattern, physicalIndexes, type Reach } from '../../infra/aws/function-access.js';
import { itemsTable } from '../helpers/data-model-table.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

const op: OperationRecord = {
  id: 'op_1',
  org_id: 'acme',
  type: 'dag_sync.trigger',
  status: 'running',
  phase: 'syncing_dags' as OperationRecord['phase'],
  message: 'm',
  resource_id: 'dep-1',
  requested_at: '2026-01-01T00:00:00.000Z',
  positions: { all: 12, type: 5, resource: 3, resourceType: 2 },
};

describe('the item builders', () => {
  it('put an operation in its four dense lists, its four status lists and, while it runs, the active ones', () => {
    const { positions: _, ...record } = op;
    expect(operationItem(op, op.positions!)).toEqual({
      pk: 'ORG#acme',
      sk: 'OP#op_1',
      ...record,
      seq: 12,
      type_seq: 5,
      res_seq: 3,
      res_type_seq: 2,
      gsi1pk: 'ORG#acme#OPS',
      gsi1sk: '000000000012',
      gsi2pk: 'ORG#acme#OPS#TYPE#dag_sync.trigger',
      gsi2sk: '000000000005',
      gsi3pk: 'ORG#acme#RES#dep-1',
      gsi3sk: '000000000003',
      gsi8pk: 'ORG#acme#RES#dep-1#TYPE#dag_sync.trigger',
      gsi8sk: '000000000002',
      gsi4pk: 'ORG#acme#OPS#STATUS#running',
      gsi4sk: '000000000012',
      gsi6pk: 'ORG#acme#OPS#TYPE#dag_sync.trigger#STATUS#running',
      gsi6sk: '000000000005',
      gsi7pk: 'ORG#acme#RES#dep-1#STATUS#running',
      gsi7sk: '000000000003',
      gsi9pk: 'ORG#acme#RES#dep-1#TYPE#dag_sync.trigger#STATUS#running',
      gsi9sk: '000000000002',
      gsi5pk: 'ACTIVE_OPS',
      gsi5sk: '2026-01-01T00:00:00.000Z#op_1',
    });
    expect(operationItem({ ...op, status: 'succeeded' }, op.positions!)).not.toHaveProperty('gsi5pk');
    expect(operation.statusIndexKeys({ ...op }, 'failed')).toEqual({
      gsi4pk: 'ORG#acme#OPS#STATUS#failed',
      gsi6pk: 'ORG#acme#OPS#TYPE#dag_sync.trigger#STATUS#failed',
      gsi7pk: 'ORG#acme#RES#dep-1#STATUS#failed',
      gsi9pk: 'ORG#acme#RES#dep-1#TYPE#dag_sync.trigger#STATUS#failed',
    });
    expect(operationCountedIn(op)).toEqual([
      ['ORG#acme#OPS', 12],
      ['ORG#acme#OPS#TYPE#dag_sync.trigger', 5],
      ['ORG#acme#RES#dep-1', 3],
      ['ORG#acme#RES#dep-1#TYPE#dag_sync.trigger', 2],
    ]);
  });

  it('store a deployment with its per-type operation counts and its two lists', () => {
    const d: DeploymentRecord = {
      id: 'dep-1',
      org_id: 'acme',
      name: 'etl',
      app_type: 'airflow',
      status: 'ready',
      environment_id: 'env_default',
      created_at: 't0',
      updated_at: 't1',
      last_operation_id: 'op_1',
      op_count: 3,
      op_counts: { 'deployment.create': 1, 'dag_sync.trigger': 2 },
      config: { app_version: '3.1.3', size: 'small', env: {} },
      revision: 2,
      applied_at: 't1',
      in_flight: ['dag_sync.trigger op_1'],
    };
    const { op_counts: _, in_flight: __, ...record } = d;
    expect(deploymentItem(d, 7)).toEqual({
      pk: 'ORG#acme',
      sk: 'DEP#dep-1',
      ...record,
      in_flight: new Set(['dag_sync.trigger op_1']),
      seq: 7,
      'op_count_deployment.create': 1,
      'op_count_dag_sync.trigger': 2,
      gsi1pk: 'ORG#acme#DEPS',
      gsi1sk: '000000000007',
      gsi4pk: 'ORG#acme#DEPS#ready',
      gsi4sk: '000000000007',
    });
    expect(deploymentCountedIn({ ...d, seq: 7 })).toEqual([['ORG#acme#DEPS', 7]]);
    expect(deployment.statusIndexKeys({ ...d }, 'destroying')).toEqual({ gsi4pk: 'ORG#acme#DEPS#destroying' });
  });

  it('number an event in the log, its type and its record, without storing the organization or the type number', () => {
    const e = {
      id: 'evt_1',
      type: 'operation.updated',
      sequence: 40,
      typeSequence: 9,
      createdAt: 't',
      actor: { type: 'system' },
      data: { a: 1 },
      resourceId: 'op_1',
    };
    expect(eventItem('acme', e)).toEqual({
      ...eventKey('acme', 40),
      id: 'evt_1',
      type: 'operation.updated',
      sequence: 40,
      created_at: 't',
      actor: { type: 'system' },
      data: { a: 1 },
      resource_id: 'op_1',
      gsi1pk: 'ORG#acme#EVTS',
      gsi1sk: '000000000040',
      gsi2pk: 'ORG#acme#EVTS#TYPE#operation.updated',
      gsi2sk: '000000000009',
      gsi3pk: 'ORG#acme#EVTS#RES#op_1',
      gsi3sk: '000000000040',
    });
  });

  it('pad numbers in keys, keep strings as given, and count a position in its bucket of 50', () => {
    expect(eventKey('acme', 7)).toEqual({ pk: 'ORG#acme', sk: 'EVT#000000000007' });
    expect(authFailureKey('10.0.0.1', 1764000000)).toEqual({ pk: 'AUTHFAIL#10.0.0.1', sk: '1764000000' });
    expect(statusCountsKey('ORG#acme#OPS', 50)).toEqual({ pk: 'ORG#acme#OPS#COUNTS', sk: '000000000000' });
    expect(statusCountsKey('ORG#acme#OPS', 51)).toEqual({ pk: 'ORG#acme#OPS#COUNTS', sk: '000000000001' });
    expect(() => operation.key({ org_id: 'acme' })).toThrow(/no value for \{id\}/);
  });
});

describe('the declarations', () => {
  const partitionTemplates = ENTITIES.flatMap((e) => [e.pk, ...e.allIndexes.map((i) => i.pk)]).filter((t) => t !== statusCounts.pk);

  it('start every partition key with a declared partition or an index’s one constant partition', () => {
    const prefixes = Object.values(PARTITIONS);
    const outside = partitionTemplates.filter((t) => !prefixes.some((p) => t.text.startsWith(p)) && t.fields.length > 0);
    expect(outside.map((t) => t.text)).toEqual([]);
    // A status counts item's partition is a dense list's, which is the organization's.
    const dense = ENTITIES.flatMap((e) => e.allIndexes.filter((i) => i.declaration.byStatus !== undefined));
    expect(dense.length).toBeGreaterThan(0);
    for (const list of dense) expect(list.pk.text.startsWith(PARTITIONS.org)).toBe(true);
  });

  it('give every partition a reach the grants can name, and only the key lists to key management', () => {
    const reaches: Reach[] = [...(Object.keys(PARTITIONS) as Reach[]), 'activeOperations', 'healthChecks', 'hibernationDue', 'orgKeyLists'];
    const glob = (pattern: string) =>
      new RegExp(
        `^${pattern
          .split('*')
          .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
      );
    for (const t of partitionTemplates) {
      const sample = t.pattern.replaceAll('*', 'x');
      expect(reaches.filter((r) => glob(leadingKeyPattern(r)).test(sample)).length).toBeGreaterThan(0);
    }
    expect(leadingKeyPattern('orgKeyLists')).toBe('ORG#*#KEYS');
    expect(leadingKeyPattern('activeOperations')).toBe('ACTIVE_OPS');
  });

  it('map every named index to one physical index of the table, and grants to those', () => {
    const physical = new Set(INDEXES.map((i) => i.name));
    for (const index of Object.values(INDEX)) expect(physical.has(index.physical)).toBe(true);
    for (const access of Object.values(FUNCTION_ACCESS))
      for (const name of physicalIndexes(access.query.indexes)) expect(physical.has(name)).toBe(true);
    expect(physicalIndexes(FUNCTION_ACCESS['list-operations'].query.indexes)).toEqual([
      'gsi1',
      'gsi2',
      'gsi3',
      'gsi4',
      'gsi6',
      'gsi7',
      'gsi8',
      'gsi9',
    ]);
  });

  it('are the only place, with the table, that names a physical index', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
      );
    const allowed = ['contract/table/entities.ts', 'contract/table/table.ts'];
    const naming = [...sources(path.join(ROOT, 'functions')), ...sources(path.join(ROOT, 'infra'))]
      .map((f) => path.relative(ROOT, f))
      .filter((f) => !allowed.includes(f) && /'gsi\d/.test(readFileSync(path.join(ROOT, f), 'utf8')));
    expect(naming).toEqual([]);
  });

  it('are what docs/data-model.md lists (npx tsx test/helpers/data-model-table.ts prints the table)', () => {
    expect(readFileSync(path.join(ROOT, 'docs/data-model.md'), 'utf8')).toContain(itemsTable());
  });
});
