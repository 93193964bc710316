/** An intent's result becomes the `{"data": …}` envelope; a raw result (the docs page) is sent as it is (decision 1). */
import { type ApiMiddleware, intentResult } from './api-request.js';
import { jsonResponse } from './responses.js';

export const envelope = (): ApiMiddleware => ({
  after(request) {
    const result = intentResult(request.response);
    if (!result) return;
    if ('raw' in result) {
      const { status, body, contentType, headers } = result.raw;
      request.response = { statusCode: status ?? 200, headers: { ...headers, 'Content-Type': contentType }, body };
      return;
    }
    request.response = jsonResponse(result);
  },
});
