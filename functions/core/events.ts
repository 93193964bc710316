/**
 * Events (decision 37): every change a client can see, described by the record after it
 * and the top-level fields it changed. Written by the same transaction as the change, so
 * there is no change without its event and no event without its change.
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Actor, Deployment, Event, EventType, Operation } from '../../contract/schemas.js';

export type { Actor };
export type EventObject = Deployment | Operation;

/** The workflow's changes (phases, ends, the reconciler's settling; decision 46). */
export const SYSTEM_ACTOR: Actor = { type: 'system' };

/** The author of a request's changes: its key, by the id GET /key shows. */
export const keyActor = (keyId: string): Actor => ({ type: 'api_key', id: keyId });

/** The author of a change made from the dashboard: the signed-in user, by the user pool's id (`sub`). */
export const userActor = (userId: string): Actor => ({ type: 'user', id: userId });

/**
 * The actor of a stored event. Events written before actors were recorded (decision 46)
 * carry none: they read as the system's, so every event has one and none is invented for
 * a key (decision 140).
 */
export function storedActor(value: unknown): Actor {
  const v = value as { type?: unknown; id?: unknown } | undefined;
  if ((v?.type === 'api_key' || v?.type === 'user') && typeof v.id === 'string') return { type: v.type, id: v.id };
  return SYSTEM_ACTOR;
}

/** An event before it is numbered: the transaction that writes it gives it its sequence. */
export interface PendingEvent {
  id: string;
  type: EventType;
  /** The id of the record it is about (the `resource_id` filter). */
  resourceId: string;
  actor: Actor;
  data: Event['data'];
}

/** The fields that changed, each with its earlier value (null for one that was absent). */
export function previousValues(before: EventObject, after: EventObject): Record<string, unknown> {
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const previous: Record<string, unknown> = {};
  for (const field of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (!isDeepStrictEqual(b[field], a[field])) previous[field] = b[field] ?? null;
  }
  return previous;
}

/**
 * The event of one record's change, by `actor`: `<kind>.created` without `before`, `<kind>.updated`
 * with what changed, or nothing when nothing a client sees changed (e.g. a job handle).
 */
export function changeEvent(
  kind: 'deployment' | 'operation',
  actor: Actor,
  before: EventObject | undefined,
  after: EventObject,
): PendingEvent | undefined {
  if (!before) return { id: `evt_${randomUUID()}`, type: `${kind}.created`, resourceId: after.id, actor, data: { object: after } };
  const previous = previousValues(before, after);
  if (Object.keys(previous).length === 0) return undefined;
  return { id: `evt_${randomUUID()}`, type: `${kind}.updated`, resourceId: after.id, actor, data: { object: after, previous } };
}
