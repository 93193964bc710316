/**
 * A deployment's health (decision 48), stored in two places (decision 245): the rolled-up
 * `health` on the deployment record, which only a change of the rolled-up status writes
 * (with its event, under the organization's lock), and the health item beside it
 * (`DEP#<id>#HEALTH`: components, `checked_at`), which every check writes. A check that
 * changes nothing is one Query (the deployment's key range: the record and its health
 * item) and one small UpdateItem of `checked_at`.
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deploymentHealth, deploymentHealthKey, deploymentKey } from '../../../contract/table/entities.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import type { HealthDetail } from '../../core/health.js';
import { ddb, tableName } from './client.js';
import { toDeployment } from './deployment-reads.js';
import { type ChangeEvents, eventWrites } from './event-log.js';
import { orgAfter, orgUpdate, remember, snapshotOf, withWriteState } from './org-lock.js';
import { Retry, type RetryPolicy, type TransactItem, TransactionRefused, transact, updateParts, withCondition } from './transact.js';

/** The health item of a deployment: `watched` puts it in healthChecks, the checker's list. */
export function healthItem(orgId: string, deploymentId: string, detail: HealthDetail, watched: boolean): Record<string, unknown> {
  const values = { org_id: orgId, deployment_id: deploymentId, ...detail, watched };
  return { ...deploymentHealthKey(orgId, deploymentId), ...values, ...deploymentHealth.indexKeys(values) };
}

const toDetail = (item: Record<string, unknown>): HealthDetail & { watched: boolean } => ({
  status: item.status as HealthDetail['status'],
  since: String(item.since),
  checked_at: typeof item.checked_at === 'string' ? item.checked_at : null,
  components: (item.components as HealthDetail['components'] | undefined) ?? [],
  watched: item.watched === true,
});

export interface DeploymentWithHealth {
  deployment?: DeploymentRecord;
  /** Absent until the deployment's first check (the one its create makes when it succeeds). */
  health?: HealthDetail & { watched: boolean };
}

/** The deployment and its health item: one Query of the deployment's key range (`DEP#<id>`, `DEP#<id>#HEALTH`). */
export async function getDeploymentWithHealth(orgId: string, id: string, consistent = true): Promise<DeploymentWithHealth> {
  const { pk, sk } = deploymentKey(orgId, id);
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': sk },
      ConsistentRead: consistent,
    }),
  );
  const record = Items.find((i) => i.sk === sk);
  const health = Items.find((i) => i.sk === deploymentHealthKey(orgId, id).sk);
  return { deployment: record && toDeployment(record), health: health && toDetail(health) };
}

/** The health item alone (GetItem): what a hibernate keeps of it (decision 50). */
export async function getHealthDetail(orgId: string, id: string): Promise<(HealthDetail & { watched: boolean }) | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: deploymentHealthKey(orgId, id), ConsistentRead: true }));
  return Item && toDetail(Item);
}

/** One Update of the health item, only while it exists: false when it did not. */
async function updateHealth(orgId: string, id: string, parts: ReturnType<typeof updateParts>): Promise<boolean> {
  try {
    await ddb.send(
      new UpdateCommand({ TableName: tableName(), Key: deploymentHealthKey(orgId, id), ...withCondition(parts, 'attribute_exists(pk)') }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

/** A check that changed nothing: only `checked_at` moves. */
export const touchHealth = (orgId: string, id: string, at: string): Promise<boolean> =>
  updateHealth(orgId, id, updateParts({ checked_at: at }));

/** A check that changed components but not the rolled-up status: the health item alone. */
export const saveComponents = (orgId: string, id: string, detail: HealthDetail): Promise<boolean> =>
  updateHealth(orgId, id, updateParts({ checked_at: detail.checked_at, components: detail.components }));

/** The deployment is no longer ready: the checker stops visiting it, and its components are no longer current. */
export const unwatch = (orgId: string, id: string): Promise<boolean> => {
  const index = deploymentHealth.indexes.healthChecks;
  return updateHealth(orgId, id, updateParts({ watched: false, components: [] }, [index.pkAttr, index.skAttr]));
};

/**
 * A check that changed the rolled-up status: the deployment's `health` (only while it is
 * still ready with the health that was read), the health item and the `deployment.updated`
 * event, in one transaction under the organization's lock. False when the deployment moved
 * meanwhile (its next check sees it as it is).
 */
export async function saveHealthChange(
  d: DeploymentRecord,
  detail: HealthDetail,
  events: ChangeEvents,
  retries: RetryPolicy,
): Promise<boolean> {
  const health = { status: detail.status, since: detail.since };
  return withWriteState(
    d.org_id,
    undefined,
    async ({ org }) => {
      const snap = snapshotOf(org, new Date(detail.checked_at ?? Date.now()));
      const after: DeploymentRecord = { ...d, health, updated_at: snap.at };
      const written = eventWrites(d.org_id, snap, [events.deployment(d, after)]);
      const deploymentWrite: TransactItem = {
        Update: {
          TableName: tableName(),
          Key: deploymentKey(d.org_id, d.id),
          ...withCondition(
            updateParts({ health, updated_at: snap.at }),
            // As read: the event's views are the record's before and after.
            '#st = :ready AND #ua = :read',
            { '#st': 'status', '#ua': 'updated_at' },
            { ':ready': 'ready', ':read': d.updated_at },
          ),
        },
      };
      try {
        await transact({
          org: orgUpdate(d.org_id, snap, written.set),
          deployment: deploymentWrite,
          health: { Put: { TableName: tableName(), Item: healthItem(d.org_id, d.id, detail, true) } },
          ...written.items,
        });
      } catch (e) {
        if (!(e instanceof TransactionRefused)) throw e;
        if ([...e.failed].some((name) => name !== 'org')) return false;
        throw new Retry(e.current);
      }
      remember(d.org_id, orgAfter(d.org_id, snap, written.set), after);
      return true;
    },
    retries,
  );
}

/** A page of the deployments the checker is to visit (healthChecks), and where the next page starts. */
export async function watchedPage(
  limit: number,
  after?: Record<string, unknown>,
): Promise<{ items: { orgId: string; deploymentId: string }[]; next?: Record<string, unknown> }> {
  const index = deploymentHealth.indexes.healthChecks;
  const out: QueryCommandOutput = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.physical,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': index.pkAttr },
      ExpressionAttributeValues: { ':pk': index.pk.build({}) },
      Limit: limit,
      ...(after ? { ExclusiveStartKey: after } : {}),
    }),
  );
  return {
    items: (out.Items ?? []).map((i) => ({ orgId: String(i.org_id), deploymentId: String(i.deployment_id) })),
    ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}),
  };
}
