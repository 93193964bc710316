/**
 * Every operation filter and combination (status, type, resource_id) and the deployment
 * status filter, paged at several sizes, against the answer computed from the records
 * themselves: the same members, newest first, the same total and page count. The
 * organization holds more than one status-count bucket (50 positions) in every list it
 * pages through, and its operations move between statuses after they were listed once.
 */

import type { OperationStatus, OperationType } from '../../contract/schemas.js';
import { applyTransition } from '../../functions/adapters/dynamo/apply-transition.js';
import { getDeployment, listDeployments } from '../../functions/adapters/dynamo/deployment-reads.js';
import { insertOperation } from '../../functions/adapters/dynamo/insert-operation.js';
import { listOperations, type OperationFilters } from '../../functions/adapters/dynamo/operation-reads.js';
import { withWriteState } from '../../functions/adapters/dynamo/org-lock.js';
import { STEP_RETRIES } from '../../functions/adapters/dynamo/transact.js';
import { systemChanges } from '../../functions/app/change-events.js';
import { completeOperation } from '../../functions/app/workflow-steps.js';
import type { DeploymentRecord } from '../../functions/core/deployments.js';
import { type OperationRecord, queuedOperation } from '../../functions/core/operations.js';
import { newOrgId } from '../helpers/fixtures.js';
import { newDeployment } from '../helpers/workflow-harness.js';

const orgId = newOrgId();
/** Every operation of the organization as the test left it, oldest first. */
const ops: OperationRecord[] = [];
const deployments: DeploymentRecord[] = [];

async function readyDeployment(): Promise<DeploymentRecord> {
  const { deployment, operation } = await newDeployment(orgId);
  await completeOperation({ org_id: orgId, operation_id: operation.id, deployment_id: deployment.id }, 'apps.test.example');
  ops.push({ ...operation, status: 'succeeded' });
  return (await getDeployment(orgId, deployment.id, true))!;
}

async function addOperation(d: DeploymentRecord, type: OperationType): Promise<OperationRecord> {
  const current = (await getDeployment(orgId, d.id, true))!;
  const op = await withWriteState(
    orgId,
    d.id,
    ({ org }) =>
      insertOperation({
        deployment: current,
        org,
        now: new Date(),
        events: systemChanges,
        build: (at) => queuedOperation({ org_id: orgId, type, resource_id: d.id, requested_at: at }),
      }),
    STEP_RETRIES,
  );
  ops.push(op);
  return op;
}

async function move(op: OperationRecord, status: OperationStatus): Promise<void> {
  const at = new Date().toISOString();
  expect(await applyTransition({ operation: op, change: { status }, at, retries: STEP_RETRIES, events: systemChanges })).toBe(true);
  ops[ops.indexOf(op)] = { ...op, status };
}

const STATUSES: OperationStatus[] = ['queued', 'running', 'succeeded', 'failed', 'canceled'];
const TYPES: OperationType[] = ['dag_sync.trigger', 'app_user.provision'];

beforeAll(async () => {
  for (let i = 0; i < 3; i++) deployments.push(await readyDeployment());
  // 230 operations, most on the first deployment, types and final statuses interleaved.
  for (let i = 0; i < 230; i++) {
    const d = deployments[i % 5 === 0 ? 1 : i % 7 === 0 ? 2 : 0]!;
    const op = await addOperation(d, TYPES[i % 3 === 0 ? 1 : 0]!);
    const to = STATUSES[(i * 7) % 5]!;
    if (to !== 'queued') await move(op, to === 'succeeded' || to === 'failed' || to === 'canceled' ? 'running' : to);
    if (to !== 'queued' && to !== 'running') await move(ops[ops.length - 1]!, to);
  }
}, 240_000);

function expected(f: OperationFilters): OperationRecord[] {
  return ops
    .filter(
      (o) =>
        (!f.status || o.status === f.status) &&
        (!f.type || o.type === f.type) &&
        (f.resourceId === undefined || o.resource_id === f.resourceId),
    )
    .reverse();
}

async function checkAllPages(f: OperationFilters, perPage: number): Promise<void> {
  const want = expected(f);
  const pages = Math.ceil(want.length / perPage);
  for (const page of new Set([1, 2, Math.ceil(pages / 2), pages, pages + 1].filter((p) => p >= 1))) {
    const got = await listOperations(orgId, f, { page, per_page: perPage });
    const label = `${JSON.stringify(f)} page ${page} of ${pages} (${perPage} per page)`;
    expect({ label, pagination: got.pagination }).toEqual({ label, pagination: { page, per_page: perPage, total: want.length, pages } });
    expect({ label, ids: got.items.map((o) => o.id) }).toEqual({
      label,
      ids: want.slice((page - 1) * perPage, page * perPage).map((o) => o.id),
    });
  }
}

describe('operation lists, every filter and combination', () => {
  const resources = () => [undefined, deployments[0]!.id, deployments[1]!.id];
  it.each([[7], [50]])(
    'match the records at %i per page, newest first, with exact totals',
    async (perPage) => {
      for (const resourceId of resources())
        for (const type of [undefined, ...TYPES])
          for (const status of [undefined, ...STATUSES]) await checkAllPages({ resourceId, type, status }, perPage);
    },
    120_000,
  );

  it('follow operations as they change status after being listed', async () => {
    const running = ops.filter((o) => o.status === 'running').slice(0, 10);
    expect(running.length).toBeGreaterThan(0);
    for (const op of running) await move(op, 'succeeded');
    for (const resourceId of resources()) {
      await checkAllPages({ resourceId, status: 'running' }, 7);
      await checkAllPages({ resourceId, status: 'succeeded', type: running[0]!.type }, 13);
    }
  }, 120_000);
});

describe('deployment lists by status', () => {
  it('match the records across buckets', async () => {
    // Deployments' count buckets hold 50 positions: make more than two buckets' worth.
    const more: string[] = [];
    for (let i = 0; i < 110; i++) more.push((await newDeployment(orgId)).deployment.id);
    const ready = new Set(deployments.map((d) => d.id));
    for (const status of ['provisioning', 'ready'] as const) {
      const want = status === 'ready' ? [...ready].reverse() : [...more].reverse();
      const pages = Math.ceil(want.length / 10);
      for (const page of [1, Math.ceil(pages / 2), pages]) {
        const got = await listDeployments(orgId, { status, page, per_page: 10 });
        expect(got.pagination.total).toBe(want.length);
        expect(got.items.map((d) => d.id)).toEqual(want.slice((page - 1) * 10, page * 10));
      }
    }
  }, 120_000);
});
