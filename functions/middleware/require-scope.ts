import type { Route } from '../../contract/routes.js';
import { checkScope } from '../core/api-keys.js';
import type { ApiMiddleware } from './api-request.js';

/** The key must hold one of the route's scopes; the 403 names the first (decision 29). */
export const requireScope = (access: Route['access']): ApiMiddleware => ({
  before(request) {
    const { caller } = request.context.api;
    if (caller && typeof access !== 'string') checkScope(caller.scopes, access);
  },
});
