/**
 * The one place errors become answers (DESIGN principle 2): an ApiError is shown as its
 * code and message; anything else is a fault, logged with its stack and answered with a
 * generic 500 and the request id, never its text.
 */
import { ApiError } from '../../contract/errors.js';
import { logger } from '../lib/logger.js';
import type { ApiMiddleware } from './api-request.js';
import { errorEnvelope, requestIdFrom } from './responses.js';

export const mapErrors = (): ApiMiddleware => ({
  onError(request) {
    const error = request.error;
    if (!(error instanceof ApiError) || error.status >= 500) logger.error('request failed', { error: error as Error });
    request.response = errorEnvelope(error, request.context.api?.requestId ?? requestIdFrom(undefined));
  },
});
