/**
 * The dashboard API's gate: the signed-in user's bearer token (verified against the user
 * pool), then the role the route needs. API keys open nothing here, as bearer tokens
 * open nothing on the public API (decision 28). On AWS a Cognito authorizer checks the
 * token in front too; this check stays, so the function trusts nothing it did not verify.
 */

import { checkRole, type DashboardRole } from '../../contract/dashboard-users.js';
import { apiError } from '../../contract/errors.js';
import { verifyUserToken } from '../adapters/auth/user-tokens.js';
import { admitUserRequest } from '../adapters/dynamo/user-admission.js';
import { rateLimitHeaders, windowFull } from '../core/rate-limits.js';
import { config } from '../lib/config.js';
import { logger } from '../lib/logger.js';
import type { ApiMiddleware } from './api-request.js';

const BEARER = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/;

export const authorizeUser = (role: DashboardRole): ApiMiddleware => ({
  async before(request) {
    const { headers } = request.event;
    const token = BEARER.exec(headers.authorization ?? '')?.[1];
    if (!token) {
      if (headers.authorization) throw apiError('INVALID_TOKEN');
      throw apiError('MISSING_TOKEN', { apiKey: Boolean(headers['x-api-key']) });
    }
    const user = await verifyUserToken(token);
    const { api } = request.context;
    api.user = user;
    logger.appendKeys({ user_sub: user.sub, org_id: user.orgId });
    // Decision 232: a user's changes (and dry runs, which compare secrets) are counted as a
    // key's requests are, before the role is checked; the pages' polling reads are not.
    if (request.event.httpMethod !== 'GET') {
      const limits = config().limits;
      const admission = await admitUserRequest(user.sub, limits, api.now);
      if (!admission.admitted) throw windowFull(limits, admission.usage, api.now, 'user');
      api.limitHeaders = rateLimitHeaders(limits, admission.usage, api.now);
    }
    checkRole(user, role);
  },
});
