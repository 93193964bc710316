/**
 * The one place errors become answers (DESIGN principle 2): an ApiError is shown as its
 * code and message; anything else is a fault, logged with its stack and answered with a
 * generic 500 and the request id, never its text.
 */
import { ApiError, invalidRequest } from '../../contract/errors.js';
import { logger } from '../lib/logger.js';
import type { ApiMiddleware } from './api-request.js';
import { errorEnvelope, requestIdFrom } from './responses.js';

/**
 * @middy/http-json-body-parser answers a body it cannot read with its own 422; for this
 * API that is a client's malformed JSON (or a `__proto__` key), 400 INVALID_REQUEST.
 */
function fromBodyParser(error: unknown): unknown {
  const e = error as { statusCode?: number; cause?: { package?: string; data?: unknown } };
  if (e?.statusCode !== 422 || e.cause?.package !== '@middy/http-json-body-parser') return error;
  const key = e.cause.data;
  if (key === '__proto__' || key === 'constructor')
    return invalidRequest('The request body is invalid.', [{ field: key, issue: 'unknown field' }]);
  return invalidRequest('The request body is not valid JSON.');
}

export const mapErrors = (): ApiMiddleware => ({
  onError(request) {
    const error = fromBodyParser(request.error);
    if (!(error instanceof ApiError) || error.status >= 500) logger.error('request failed', { error: error as Error });
    request.response = errorEnvelope(error, request.context.api?.requestId ?? requestIdFrom(undefined));
  },
});
