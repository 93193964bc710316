/**
 * Revisions (decision 43): each applied configuration of a deployment, numbered 1, 2, 3, …
 * with no gaps (revision 1 is the one it was created with), and the If-Match check of
 * an update against the current one (decision 42).
 */

import type { Revision } from '../../contract/schemas.js';
import { configView, type StoredConfig } from './deployment-config.js';

export interface RevisionRecord {
  org_id: string;
  deployment_id: string;
  revision: number;
  config: StoredConfig;
  /** When it was applied. */
  created_at: string;
  /** The operation that applied it: the create for revision 1. */
  operation_id: string;
  /** The revision a rollback restored. */
  rollback_of: number | null;
}

export const revisionView = (r: RevisionRecord): Revision => ({
  revision: r.revision,
  config: configView(r.config),
  created_at: r.created_at,
  operation_id: r.operation_id,
  rollback_of: r.rollback_of,
});

/** The ETag of a deployment: its revision, quoted. */
export const etagOf = (revision: number): string => `"${revision}"`;

/** If-Match holds when absent, `*`, or the current revision's ETag; anything else fails (decision 42). */
export const ifMatchHolds = (ifMatch: string | undefined, revision: number): boolean =>
  ifMatch === undefined || ifMatch.trim() === '*' || ifMatch.trim() === etagOf(revision);

/** A revision number from a path: digits only, else none (404 without a read). */
export function revisionNumber(raw: string): number | undefined {
  if (!/^[1-9]\d{0,8}$/.test(raw)) return undefined;
  return Number(raw);
}
