/**
 * Reads a JSON body, once body-guard.ts has checked its size, media type and encoding.
 * JSON.parse makes every key an own data property, `__proto__` and `constructor`
 * included, never a prototype, and the body is only read from then on (validate-input.ts
 * checks it against the route's schema; nothing merges it into another object). So such a
 * key is answered by the validation, at its path (`config.env.__proto__`), instead of
 * being refused here without one, as @middy/http-json-body-parser did (decision 296).
 */
import { invalidRequest } from '../../contract/errors.js';
import type { ApiMiddleware } from './api-request.js';

export const jsonBody = (): ApiMiddleware => ({
  before({ event }) {
    const text = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8').toString('utf8');
    try {
      (event as { body: unknown }).body = JSON.parse(text);
    } catch {
      throw invalidRequest('The request body is not valid JSON.');
    }
  },
});
