/**
 * The dashboard's activity page (decision 141): a page of the organization's events with
 * each actor's name. The key names come from one query of the organization's keys, read
 * alongside the page, so a page costs the same whatever its events' authors.
 */

import type { ActivityEntry, ActivityPage } from '../../contract/dashboard-schemas.js';
import type { DashboardUser } from '../../contract/dashboard-users.js';
import type { ListEventsQuery } from '../../contract/schemas.js';
import { keyNames } from '../adapters/dynamo/api-key-store.js';
import { listEvents } from '../adapters/dynamo/event-reads.js';

/** The name an actor goes by for `viewer`: a key's name, the viewer's own email, else null (shown by id, or as the workflow). */
function actorName(actor: ActivityEntry['actor'], keyNames: ReadonlyMap<string, string>, viewer: DashboardUser): string | null {
  if (actor.type === 'api_key') return keyNames.get(actor.id) ?? null;
  if (actor.type === 'user' && actor.id === viewer.sub) return viewer.email;
  return null;
}

export async function organizationActivity(viewer: DashboardUser, query: ListEventsQuery): Promise<ActivityPage> {
  const [page, names] = await Promise.all([
    listEvents(viewer.orgId, { type: query.type, resourceId: query.resource_id }, query),
    keyNames(viewer.orgId),
  ]);
  return { items: page.items.map((e) => ({ ...e, actor_name: actorName(e.actor, names, viewer) })), pagination: page.pagination };
}
