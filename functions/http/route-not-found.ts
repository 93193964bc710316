/**
 * The answer for a request no route takes: 404 NOT_FOUND for an unknown path, 405 with
 * `Allow` for a known path with another method (decision 33). On AWS, API Gateway sends
 * such requests here through catch-all methods; locally the server calls it directly.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../core/errors.js';
import { errorResponse, requestIdOf } from '../lib/http.js';
import { matchRoute } from '../lib/router.js';

export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const requestId = requestIdOf(event);
  const match = matchRoute(event.httpMethod, event.path);
  if (match.kind === 'method-not-allowed') {
    const allow = match.allow.join(', ');
    return errorResponse(
      new ApiError(405, 'METHOD_NOT_ALLOWED', `${event.httpMethod} is not allowed here. Allowed: ${allow}.`, { headers: { Allow: allow } }),
      requestId,
    );
  }
  return errorResponse(new ApiError(404, 'NOT_FOUND', `No endpoint at ${event.httpMethod} ${event.path}.`), requestId);
}
