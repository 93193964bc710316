/**
 * Webhooks (decision 38) and their delivery attempts. A webhook is an item of its
 * organization, counted on the organization item (`wh_count`) so the limit holds under
 * concurrency; its secret is stored sealed. Attempts are items of the webhook, newest
 * first, counted on the webhook (`delivery_count`) for the list's total.
 */

import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType, Pagination, WebhookDelivery } from '../../../contract/schemas.js';
import { deliveryAttempt, deliveryPk, orgKey, webhook, webhookKey } from '../../../contract/table/entities.js';
import { type PageRequest, pageWindow } from '../../core/pagination.js';
import { ddb, tableName } from './client.js';
import { webhookItem } from './items.js';
import { requestRetries, TransactionRefused, transact, withRetries } from './transact.js';

/** Runs a transaction (again after a conflict); false when the named item's condition failed. */
async function unless(failing: string, items: Parameters<typeof transact>[0]): Promise<boolean> {
  try {
    await withRetries(() => transact(items), requestRetries(new Date()));
    return true;
  } catch (e) {
    if (e instanceof TransactionRefused && e.failed.has(failing)) return false;
    throw e;
  }
}

export interface WebhookRecord {
  id: string;
  org_id: string;
  url: string;
  events: EventType[];
  description: string | null;
  created_at: string;
  /** The signing secret, sealed for the deliverer (core/secret-sealer.ts). */
  secret_sealed: string;
  delivery_count: number;
}

const toWebhook = (item: Record<string, unknown>): WebhookRecord => ({
  id: String(item.id),
  org_id: String(item.org_id),
  url: String(item.url),
  events: (item.events ?? []) as EventType[],
  description: typeof item.description === 'string' ? item.description : null,
  created_at: String(item.created_at),
  secret_sealed: String(item.secret_sealed),
  delivery_count: Number(item.delivery_count ?? 0),
});

/** Stores a webhook unless the organization already has `limit`; false when it has. */
export async function insertWebhook(w: WebhookRecord, limit: number): Promise<boolean> {
  return unless('org', {
    org: {
      Update: {
        TableName: tableName(),
        Key: orgKey(w.org_id),
        UpdateExpression: 'ADD wh_count :one SET org_id = :org',
        ConditionExpression: 'attribute_not_exists(wh_count) OR wh_count < :limit',
        ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':org': w.org_id },
      },
    },
    webhook: {
      Put: {
        TableName: tableName(),
        Item: webhookItem(w),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  });
}

export async function getWebhook(orgId: string, id: string): Promise<WebhookRecord | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: webhookKey(orgId, id), ConsistentRead: true }));
  return Item ? toWebhook(Item) : undefined;
}

/** All of an organization's webhooks (at most the limit), newest first. */
export async function listWebhooks(orgId: string): Promise<WebhookRecord[]> {
  const list = webhook.indexes.webhooks;
  const { Items = [] } = await ddb.send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: list.physical,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': list.pkAttr },
      ExpressionAttributeValues: { ':pk': list.pk.build({ org_id: orgId }) },
      ScanIndexForward: false,
    }),
  );
  return Items.map(toWebhook);
}

/** Deletes a webhook; false when there was none. Its attempts expire with their TTL. */
export async function deleteWebhook(orgId: string, id: string): Promise<boolean> {
  return unless('webhook', {
    webhook: { Delete: { TableName: tableName(), Key: webhookKey(orgId, id), ConditionExpression: 'attribute_exists(pk)' } },
    org: {
      Update: {
        TableName: tableName(),
        Key: orgKey(orgId),
        UpdateExpression: 'ADD wh_count :minus',
        ExpressionAttributeValues: { ':minus': -1 },
      },
    },
  });
}

/** Delivery attempts are kept 30 days. */
const DELIVERY_TTL_SECONDS = 30 * 86_400;

/** Records one attempt and counts it on the webhook (gone already: the attempt is not kept). */
export async function recordDelivery(orgId: string, webhookId: string, d: WebhookDelivery): Promise<void> {
  await unless('webhook', {
    webhook: {
      Update: {
        TableName: tableName(),
        Key: webhookKey(orgId, webhookId),
        UpdateExpression: 'ADD delivery_count :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
    attempt: {
      Put: {
        TableName: tableName(),
        Item: {
          ...deliveryAttempt.key({ webhook_id: webhookId, attempted_at: d.attempted_at, id: randomUUID() }),
          ...d,
          ttl: Math.floor(Date.parse(d.attempted_at) / 1000) + DELIVERY_TTL_SECONDS,
        },
      },
    },
  });
}

/** A webhook's attempts, newest first (a page reads at most the items up to its end). */
export async function listDeliveries(w: WebhookRecord, req: PageRequest): Promise<{ items: WebhookDelivery[]; pagination: Pagination }> {
  const { pagination } = pageWindow(w.delivery_count, req);
  const skip = (req.page - 1) * req.per_page;
  const items: WebhookDelivery[] = [];
  let start: Record<string, unknown> | undefined;
  let seen = 0;
  while (skip < w.delivery_count && items.length < req.per_page) {
    const page = await ddb.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': deliveryPk(w.id) },
        ScanIndexForward: false,
        ExclusiveStartKey: start,
        Limit: skip + req.per_page - seen,
      }),
    );
    for (const item of page.Items ?? []) {
      if (seen++ >= skip && items.length < req.per_page) {
        items.push({
          event_id: String(item.event_id),
          attempt: Number(item.attempt),
          attempted_at: String(item.attempted_at),
          status_code: item.status_code === null || item.status_code === undefined ? null : Number(item.status_code),
          succeeded: item.succeeded === true,
        });
      }
    }
    start = page.LastEvaluatedKey;
    if (!start) break;
  }
  return { items, pagination };
}
