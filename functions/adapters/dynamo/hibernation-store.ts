/**
 * Hibernation's own writes and reads (decision 50): a change of the record's `hibernation`
 * alone (a hold recorded on a deployment already in the asked state, a hold's end), and
 * the scheduler's list, the sparse index hibernationDue: the deployments with a schedule or
 * a hold, by the next minute the scheduler is to visit them (decision 260).
 */

import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { deployment, deploymentKey } from '../../../contract/table/entities.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import { ddb, tableName } from './client.js';
import { toDeployment } from './deployment-reads.js';
import { type ChangeEvents, eventWrites } from './event-log.js';
import { type Item, orgAfter, orgUpdate, remember, snapshotOf, withWriteState } from './org-lock.js';
import { Retry, type RetryPolicy, TransactionRefused, transact, updateParts, withCondition } from './transact.js';

const dueIndex = () => deployment.indexes.hibernationDue;

/** The index keys of a deployment due at `hibernation_due` (none when the fields leave it unset). */
export const dueIndexKeys = (d: Pick<DeploymentRecord, 'org_id' | 'id'>, fields: Pick<DeploymentRecord, 'hibernation_due'>) =>
  fields.hibernation_due === undefined ? {} : dueIndex().keys({ org_id: d.org_id, id: d.id, hibernation_due: fields.hibernation_due });

export type HibernationFields = Pick<DeploymentRecord, 'hibernation'> & { hibernation_due?: string | null };

/**
 * Sets the record's `hibernation` (and the scheduler's next visit) while the deployment is
 * as read, with its `deployment.updated` event under the organization's lock: a visible
 * change (decision 37). False when the deployment moved meanwhile.
 */
export function saveHibernation(
  d: DeploymentRecord,
  fields: HibernationFields,
  events: ChangeEvents,
  retries: RetryPolicy,
  now: Date,
): Promise<DeploymentRecord | undefined> {
  return withWriteState(d.org_id, undefined, ({ org }) => writeHibernation(org, d, fields, events, now), retries);
}

/** One attempt of saveHibernation from the organization item as read (withWriteState): undefined when the deployment moved. */
export async function writeHibernation(
  org: Item,
  d: DeploymentRecord,
  fields: HibernationFields,
  events: ChangeEvents,
  now: Date,
): Promise<DeploymentRecord | undefined> {
  const snap = snapshotOf(org, now);
  const { hibernation_due: due, ...visible } = fields;
  const after: DeploymentRecord = { ...d, ...visible, updated_at: snap.at };
  if (due === null) delete after.hibernation_due;
  else if (due !== undefined) after.hibernation_due = due;
  const written = eventWrites(d.org_id, snap, [events.deployment(d, after)]);
  const index = dueIndex();
  const set = {
    ...visible,
    updated_at: snap.at,
    ...(typeof due === 'string' ? { hibernation_due: due, ...dueIndexKeys(d, { hibernation_due: due }) } : {}),
  };
  const remove = due === null ? ['hibernation_due', index.pkAttr, index.skAttr] : [];
  const condition = withCondition(
    updateParts(set, remove),
    '#st = :st AND #ua = :read',
    { '#st': 'status', '#ua': 'updated_at' },
    {
      ':st': d.status,
      ':read': d.updated_at,
    },
  );
  try {
    await transact({
      org: orgUpdate(d.org_id, snap, written.set),
      deployment: { Update: { TableName: tableName(), Key: deploymentKey(d.org_id, d.id), ...condition } },
      ...written.items,
    });
  } catch (e) {
    if (!(e instanceof TransactionRefused)) throw e;
    if ([...e.failed].some((name) => name !== 'org')) return undefined;
    throw new Retry(e.current);
  }
  remember(d.org_id, orgAfter(d.org_id, snap, written.set), after);
  return after;
}

/**
 * Moves the scheduler's next visit of a deployment (null: none, it leaves the list), only
 * while it is still the one read and the record is still the one the visit decided from
 * (`updatedAt`): no client sees it, so no event and no lock. False when another write
 * moved it first (the scheduler then finds it as that write left it).
 */
export async function moveDue(
  d: Pick<DeploymentRecord, 'org_id' | 'id' | 'updated_at'>,
  read: string,
  next: string | null,
): Promise<boolean> {
  const index = dueIndex();
  const parts =
    next === null
      ? updateParts({}, ['hibernation_due', index.pkAttr, index.skAttr])
      : updateParts({ hibernation_due: next, ...dueIndexKeys(d, { hibernation_due: next }) });
  try {
    await ddb.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deploymentKey(d.org_id, d.id),
        ...withCondition(
          parts,
          '#due = :read AND #ua = :ua',
          { '#due': 'hibernation_due', '#ua': 'updated_at' },
          { ':read': read, ':ua': d.updated_at },
        ),
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

export interface DueEntry {
  orgId: string;
  deploymentId: string;
  due: string;
  /** The record as the index holds it (eventually consistent): every write the scheduler makes from it is conditioned on it. */
  record?: DeploymentRecord;
}

/** A page of the deployments due before `before` (an ISO minute), earliest first, and where the next page starts. */
export async function duePage(
  before: string,
  limit: number,
  after?: Record<string, unknown>,
): Promise<{ items: DueEntry[]; next?: Record<string, unknown> }> {
  const index = dueIndex();
  const out: QueryCommandOutput = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.physical,
      KeyConditionExpression: '#pk = :pk AND #sk < :before',
      ExpressionAttributeNames: { '#pk': index.pkAttr, '#sk': index.skAttr },
      ExpressionAttributeValues: { ':pk': index.pk.build({}), ':before': before },
      // The index projects whole items, and a Query costs the same read units with a projection
      // as without: the records come with the keys, and a visit needs no read of its own.
      Limit: limit,
      ...(after ? { ExclusiveStartKey: after } : {}),
    }),
  );
  return {
    items: (out.Items ?? []).map((i) => ({
      orgId: String(i.org_id),
      deploymentId: String(i.id),
      due: String(i.hibernation_due),
      record: toDeployment(i),
    })),
    ...(out.LastEvaluatedKey ? { next: out.LastEvaluatedKey } : {}),
  };
}
