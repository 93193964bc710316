/**
 * Decision 34: every request made with a recognised key is logged, whatever its answer.
 * The entry never turns a served request into a failure: a failed write is logged instead.
 */
import { recordUsage } from '../adapters/dynamo/usage-store.js';
import { logger } from '../lib/logger.js';
import { type ApiMiddleware, type ApiRequest, wireResponse } from './api-request.js';

async function logUsage(request: ApiRequest): Promise<void> {
  const { api } = request.context;
  const caller = api?.caller;
  const response = wireResponse(request.response);
  if (!caller || !response) return;
  try {
    await recordUsage({
      at: api.now.toISOString(),
      method: api.route.method,
      route: api.route.path,
      status: response.statusCode,
      key_id: caller.keyId,
      org_id: caller.orgId,
      request_id: api.requestId,
    });
  } catch (e) {
    logger.error('usage log write failed', { error: e as Error });
  }
}

export const usageLog = (): ApiMiddleware => ({ after: logUsage, onError: logUsage });
