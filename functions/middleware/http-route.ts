/**
 * One endpoint's Lambda handler: its intent inside the shared middy stack. Order matters
 * twice over: `before` hooks run top to bottom (request id, blocked addresses, key and limits, scope, body,
 * validation, idempotency), `after` and `onError` hooks bottom to top (idempotency sees
 * the intent's result, then the envelope, the usage log, the deprecation notice, and last the request's headers).
 */
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import { API_PREFIX } from '../core/paths.js';
import type { Route } from '../routes.js';
import { type ApiContext, type ApiResponse, type Caller, type IntentResult, type RequestState, wireResponse } from './api-request.js';
import { authFailureLimit } from './auth-failure-limit.js';
import { authenticate } from './authenticate.js';
import { bodyGuard } from './body-guard.js';
import { deprecationNotice } from './deprecation-notice.js';
import { envelope } from './envelope.js';
import { idempotency, type ReplaySealer } from './idempotency.js';
import { mapErrors } from './map-errors.js';
import { requestContext } from './request-context.js';
import { requireScope } from './require-scope.js';
import { usageLog, usageLogAhead } from './usage-log.js';
import { validateInput } from './validate-input.js';

export type LambdaHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

type Out<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

/** What an intent is given: the validated input, the caller (on keyed routes), and the request. */
export interface Input<R extends Route> {
  params: Out<R['params']>;
  query: Out<R['query']>;
  body: Out<R['body']>;
  caller: R['access'] extends 'public' ? undefined : Caller;
  now: Date;
  requestId: string;
  event: APIGatewayProxyEvent;
}

export type Intent<R extends Route> = (input: Input<R>) => Promise<IntentResult>;

const takesNoBody = (route: Route) => route.body instanceof z.ZodMiniObject && Object.keys(route.body.shape).length === 0;

/** The stack shared by every answer, the fallback for unknown paths included. */
export function baseStack(pathTemplate?: string) {
  return middy<APIGatewayProxyEvent, ApiResponse, Error, ApiContext>()
    .use(httpHeaderNormalizer())
    .use(httpEventNormalizer())
    .use(requestContext(pathTemplate))
    .use(deprecationNotice())
    .use(usageLog())
    .use(mapErrors());
}

/** `sealer`: required by a route whose answer shows a secret (`secretInAnswer`), for the copy kept for replays. */
export function httpRoute<R extends Route>(route: R, intent: Intent<R>, sealer?: ReplaySealer): LambdaHandler {
  let stack = baseStack(API_PREFIX + route.path).use(envelope());
  if (route.access !== 'public') stack = stack.use(authFailureLimit()).use(authenticate()).use(requireScope(route.access));
  if (route.body)
    stack = stack.use(bodyGuard(takesNoBody(route), route.bodyMediaTypes)).use(httpJsonBodyParser({ disableContentTypeCheck: true }));
  const handler = stack
    .use(validateInput(route))
    .use(idempotency(route, sealer))
    .use(usageLogAhead(route))
    .handler(async (event, context): Promise<IntentResult> => {
      const api: RequestState = context.api;
      // Decision 16: a repeated request gets the first response, and nothing is done again.
      if (api.replay) {
        const { status, data, headers } = api.replay;
        return { status, data, headers: { ...headers, 'Idempotent-Replayed': 'true' } };
      }
      const { params, query, body } = api.input;
      return intent({ params, query, body, caller: api.caller, now: api.now, requestId: api.requestId, event } as Input<R>);
    });
  return lambdaHandler(handler);
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
