/**
 * The step key management takes before it acts for a signed-in user: the user pool must
 * still hold the user the token describes. An ID token stays valid for its hour after the
 * user is deleted, disabled, or given another role; creating, revoking or rotating a key
 * is worth one call to the pool to refuse such a token. Anything that differs answers
 * INVALID_TOKEN: the dashboard then refreshes the token, which fails for a deleted or
 * disabled user and carries the new role for a changed one.
 */

import type { DashboardUser } from '../../contract/dashboard-users.js';
import { apiError } from '../../contract/errors.js';
import { findPoolUser } from '../adapters/auth/pool-users.js';
import { logger } from '../lib/logger.js';

export async function confirmUserInPool(user: DashboardUser): Promise<void> {
  const held = await findPoolUser(user.email);
  const stale = !held
    ? 'not in the pool'
    : !held.enabled
      ? 'disabled'
      : held.sub !== user.sub
        ? 'another user of that email'
        : held.orgId !== user.orgId || held.role !== user.role
          ? 'organization or role changed'
          : undefined;
  if (!stale) return;
  logger.info('dashboard token outlived its user', { reason: stale });
  throw apiError('INVALID_TOKEN');
}
