/**
 * One organization's line alone (decisions 37, 300): `writes` DAG syncs of one deployment
 * started at once through the use case the route calls (`startDagSync`), in this process,
 * without the HTTP requests around them. Each is one event-numbered write (its operation
 * and two events, numbered under the organization's lock); what the route adds per request
 * (the key's rate-limit update, the usage entry) is per key, not per organization, and on
 * AWS goes to other partitions, while DynamoDB Local serializes every call: the contention
 * row over HTTP measures both together, this row the organization's sequence alone.
 */
import { startDagSync } from '../functions/app/deployment-commands.js';
import { SYSTEM_ACTOR } from '../functions/core/events.js';
import { runAsFunction } from '../local/current-function.js';

export interface OrgLineResult {
  writes: number;
  committed: number;
  /** Writes that gave up (429 ORGANIZATION_BUSY or another error), by message. */
  refused: Record<string, number>;
  wallMs: number;
  writesPerSecond: number;
}

export async function runOrgLine(o: { orgId: string; deploymentId: string; writes: number }): Promise<OrgLineResult> {
  const t0 = performance.now();
  const outcomes = await Promise.allSettled(
    Array.from({ length: o.writes }, () =>
      runAsFunction('create-dag-sync', () =>
        startDagSync({ orgId: o.orgId, deploymentId: o.deploymentId, now: new Date(), actor: SYSTEM_ACTOR }),
      ),
    ),
  );
  const wallMs = performance.now() - t0;
  const refused: Record<string, number> = {};
  for (const r of outcomes) {
    if (r.status === 'fulfilled') continue;
    const message = String((r.reason as Error).message);
    refused[message] = (refused[message] ?? 0) + 1;
  }
  const committed = outcomes.filter((r) => r.status === 'fulfilled').length;
  return { writes: o.writes, committed, refused, wallMs, writesPerSecond: committed / (wallMs / 1000) };
}
