/**
 * The event log (decision 37): every write that changes what a client sees appends its
 * events, numbered 1, 2, 3, … with no gaps per organization and per type, under the
 * organization's lock (org-lock.ts), in the same transaction as the change.
 */

import { eventTypeSeqAttr } from '../../../contract/table/entities.js';
import type { DeploymentRecord } from '../../core/deployments.js';
import type { PendingEvent } from '../../core/events.js';
import type { OperationRecord } from '../../core/operations.js';
import { eventItem } from './items.js';
import { type Item, num, type OrgSnapshot, putNew } from './org-lock.js';
import type { TransactItem } from './transact.js';

/**
 * What a change looks like to clients: the event it makes (none when nothing a client
 * sees changed). The app layer builds it from the API views; the adapters only number and
 * store it.
 */
export interface ChangeEvents {
  deployment(before: DeploymentRecord | undefined, after: DeploymentRecord): PendingEvent | undefined;
  operation(before: OperationRecord | undefined, after: OperationRecord): PendingEvent | undefined;
}

/**
 * The event items a write appends (named `event1`, `event2`, …), numbered after the
 * organization's last event, and the org counters that move with them (set by the write's
 * orgUpdate).
 */
export function eventWrites(orgId: string, snap: OrgSnapshot, events: (PendingEvent | undefined)[]) {
  let sequence = num(snap.item, 'evt_seq');
  const set: Item = {};
  const items: Record<string, TransactItem> = {};
  events
    .filter((e): e is PendingEvent => e !== undefined)
    .forEach((e, i) => {
      sequence += 1;
      const typeAttr = eventTypeSeqAttr(e.type);
      const typeSequence = Number(set[typeAttr] ?? num(snap.item, typeAttr)) + 1;
      set[typeAttr] = typeSequence;
      items[`event${i + 1}`] = putNew(
        eventItem(orgId, {
          id: e.id,
          type: e.type,
          sequence,
          typeSequence,
          createdAt: snap.at,
          actor: e.actor,
          data: e.data,
          resourceId: e.resourceId,
        }),
      );
    });
  if (Object.keys(items).length) set.evt_seq = sequence;
  return { items, set };
}
