/** Reading the event log (written by event-log.ts, in the transactions of the changes). */

import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Event, EventType, Pagination } from '../../../contract/schemas.js';
import { event, eventKey, eventTypeSeqAttr } from '../../../contract/table/entities.js';
import { storedActor } from '../../core/events.js';
import type { PageRequest } from '../../core/pagination.js';
import { ddb, tableName } from './client.js';
import { byFilter, byRange } from './list-query.js';
import { counter, getOrg } from './org-reads.js';

export const toEvent = (item: Record<string, unknown>): Event => ({
  id: String(item.id),
  type: item.type as EventType,
  sequence: Number(item.sequence),
  created_at: String(item.created_at),
  actor: storedActor(item.actor),
  data: item.data as Event['data'],
});

export interface EventFilters {
  type?: EventType;
  resourceId?: string;
}

/**
 * Newest first. The whole log and each type's log have dense sequences, so any page is
 * one key range; one resource's events are few, read whole and filtered by type.
 */
export async function listEvents(orgId: string, f: EventFilters, req: PageRequest): Promise<{ items: Event[]; pagination: Pagination }> {
  let page: Awaited<ReturnType<typeof byRange>>;
  if (f.resourceId !== undefined) {
    const byType = f.type && { expression: '#ty = :ty', names: { '#ty': 'type' }, values: { ':ty': f.type } };
    page = await byFilter(event.indexes.eventsByResource, { org_id: orgId, resource_id: f.resourceId }, byType, req);
  } else if (f.type) {
    const total = counter(await getOrg(orgId, true), eventTypeSeqAttr(f.type));
    page = await byRange(event.indexes.eventsByType, { org_id: orgId, type: f.type }, total, req);
  } else {
    page = await byRange(event.indexes.events, { org_id: orgId }, counter(await getOrg(orgId, true), 'evt_seq'), req);
  }
  return { items: page.items.map(toEvent), pagination: page.pagination };
}

/** One event by its sequence (the deliverer's read). */
export async function getEvent(orgId: string, sequence: number): Promise<Event | undefined> {
  const { Item } = await ddb.send(new GetCommand({ TableName: tableName(), Key: eventKey(orgId, sequence), ConsistentRead: true }));
  return Item ? toEvent(Item) : undefined;
}
