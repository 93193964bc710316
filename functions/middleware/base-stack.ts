/**
 * What every HTTP function's stack starts with, the public API's, the dashboard API's and
 * the fallback's alike (http-route.ts, dashboard-route.ts, http/route-not-found.ts): the
 * invocation's frame, the request metrics, the normalizers, the request's id and headers,
 * the usage log and the one error mapping. Kept apart from http-route.ts, so a function
 * that takes no API key bundles nothing of the key check (the signing secret's client).
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { type ApiContext, type ApiMiddleware, type ApiResponse, wireResponse } from './api-request.js';
import { deprecationNotice } from './deprecation-notice.js';
import { headerNames } from './header-names.js';
import { invocation } from './invocation.js';
import { mapErrors } from './map-errors.js';
import { requestContext } from './request-context.js';
import { requestMetrics } from './request-metrics.js';
import { usageLog } from './usage-log.js';

export type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/**
 * The stack shared by every answer, the fallback for unknown paths included. `routeGroup`
 * is the requests metric's (contract/metric-catalogue.ts); the API Gateway request id is the
 * log lines' correlation id.
 */
export function baseStack(routeGroup: string, pathTemplate?: string) {
  return middy<APIGatewayProxyEvent, ApiResponse, Error, ApiContext>()
    .use(invocation<APIGatewayProxyEvent>((event) => event.requestContext?.requestId) as ApiMiddleware)
    .use(requestMetrics(routeGroup))
    .use(headerNames())
    .use(httpEventNormalizer())
    .use(requestContext(pathTemplate))
    .use(deprecationNotice())
    .use(usageLog())
    .use(mapErrors());
}

/** The middy stack as Lambda calls it: a plain context in, the wire response out. */
export function lambdaHandler<E extends APIGatewayProxyEvent>(
  stack: (event: E, context: ApiContext) => Promise<ApiResponse>,
): LambdaHandler {
  return async (event, context) => {
    // The normalizers fill in what E adds (empty maps for null ones); requestContext sets `api` before anything reads it.
    const response = wireResponse(await stack(event as E, context as ApiContext));
    // The envelope or the error mapping always makes one; reaching here is a bug in the stack.
    if (!response) throw new Error('The middleware stack produced no response.');
    return response;
  };
}
