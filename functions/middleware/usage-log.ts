/**
 * Every request made with a recognised key is logged, whatever its answer, so an
 * organization can see what each key did (decision 34): the route, the path it named, the
 * client's address, the status answered and the duration (decision 145). Once a request has passed every check, its entry is written
 * in parallel with the work, with the status the route answers on success; the rare answer
 * that differs (a 404, a 409) is settled afterwards with its status and duration. Requests
 * refused earlier are logged once, complete. The entry never turns a served request into a failure: a
 * failed write is logged instead.
 */

import type { Route } from '../../contract/routes.js';
import { recordUsage, settleUsage, type UsageEntry, type UsageEntryKey, usageEntryKey } from '../adapters/dynamo/usage-store.js';
import { logger } from '../lib/logger.js';
import { type ApiMiddleware, type ApiRequest, type RequestState, wireResponse } from './api-request.js';

/** The entry written ahead of the answer, and whether its write succeeded. */
interface EarlyEntry {
  key: UsageEntryKey;
  status: number;
  written: Promise<boolean>;
}

const early = new WeakMap<RequestState, EarlyEntry>();

function entryOf(request: ApiRequest, status: number, durationMs?: number): UsageEntry | undefined {
  const { api } = request.context;
  const caller = api.caller;
  if (!caller) return undefined;
  return {
    at: api.now.toISOString(),
    method: api.route.method,
    route: api.route.path,
    path: request.event.path,
    status,
    client_address: request.event.requestContext?.identity?.sourceIp || null,
    ...(durationMs === undefined ? {} : { duration_ms: durationMs }),
    key_id: caller.keyId,
    org_id: caller.orgId,
    request_id: api.requestId,
    // The callers still using a deprecated feature can be found in their keys' logs (decision 44).
    ...(api.deprecations?.length ? { deprecated: true } : {}),
  };
}

async function settle(request: ApiRequest): Promise<void> {
  const { api } = request.context;
  const response = wireResponse(request.response);
  if (!api || !response) return;
  try {
    const durationMs = Date.now() - api.now.getTime();
    const ahead = early.get(api);
    if (ahead) {
      const written = await ahead.written;
      // Goal 1 (docs/benchmark.md) leaves no room for a write on every request: an entry
      // written ahead with the right status keeps no duration; a corrected one gets it.
      if (written && ahead.status === response.statusCode) return;
      if (written) return await settleUsage(ahead.key, response.statusCode, durationMs);
    }
    const entry = entryOf(request, response.statusCode, durationMs);
    if (entry) await recordUsage(entry, ahead?.key);
  } catch (e) {
    logger.error('usage log write failed', { error: e as Error });
  }
}

/** What a request that got past every check answers when it succeeds: a dry run answers its route's other success (decision 42). */
function expectedStatus(route: Route, api: RequestState): number {
  const dryRun = (api.input.query as { dry_run?: unknown } | undefined)?.dry_run === true;
  return dryRun && route.success.or ? route.success.or.status : route.success.status;
}

/** Writes the entry of a request that got past every check; the last `before` hook. */
export const usageLogAhead = (route: Route): ApiMiddleware => ({
  async before(request) {
    const entry = entryOf(request, expectedStatus(route, request.context.api));
    if (!entry) return;
    const key = usageEntryKey(entry);
    const written = recordUsage(entry, key).then(
      () => true,
      (e: unknown) => {
        logger.error('usage log write failed', { error: e as Error });
        return false;
      },
    );
    early.set(request.context.api, { key, status: entry.status, written });
  },
});

export const usageLog = (): ApiMiddleware => ({ after: settle, onError: settle });
