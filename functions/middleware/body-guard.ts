/**
 * What a body must be before json-body.ts reads it (strict bodies,
 * decision 8), in this order: its size in raw bytes (413), its media type (415), valid UTF-8 (400). A route
 * that takes no body accepts none, or `{}`: an empty body is read as `{}`.
 */
import { apiError, invalidRequest, MAX_BODY_BYTES } from '../../contract/errors.js';
import type { ApiMiddleware } from './api-request.js';

const mediaTypeOf = (contentType: string | undefined) => contentType?.split(';')[0]?.trim().toLowerCase();
const isJson = (contentType: string | undefined) => mediaTypeOf(contentType) === 'application/json';
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `mediaTypes`: what the route takes besides application/json (a merge patch, decision 42). */
export const bodyGuard = (takesNoBody: boolean, mediaTypes: readonly string[] = ['application/json']): ApiMiddleware => ({
  before(request) {
    const { event } = request;
    const bytes = Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8');
    if (bytes.length > MAX_BODY_BYTES) throw apiError('PAYLOAD_TOO_LARGE');
    const contentType = event.headers['content-type'];
    if (takesNoBody && bytes.toString('utf8').trim() === '' && (contentType === undefined || isJson(contentType))) {
      event.body = '{}';
      event.isBase64Encoded = false;
      return;
    }
    if (!mediaTypes.includes(mediaTypeOf(contentType) ?? '')) throw apiError('UNSUPPORTED_MEDIA_TYPE', { types: mediaTypes });
    try {
      utf8.decode(bytes);
    } catch {
      throw invalidRequest('The request body is not valid UTF-8.');
    }
  },
});
