/**
 * One endpoint's Lambda handler: its intent inside the shared middy stack (base-stack.ts,
 * then the key). Order matters twice over: `before` hooks run top to bottom (the
 * invocation's frame, the request metrics, request id, blocked addresses, key and limits,
 * scope, body, validation, idempotency), `after` and `onError` hooks bottom to top
 * (idempotency sees the intent's result, then the envelope, the usage log, the deprecation
 * notice, the request's headers, and last the metrics and the frame).
 */
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import * as z from 'zod/mini';
import { API_PREFIX } from '../core/paths.js';
import { routeGroupOf } from '../lib/metric-catalogue.js';
import type { Route } from '../routes.js';
import type { Caller, IntentResult, RequestState } from './api-request.js';
import { authFailureLimit } from './auth-failure-limit.js';
import { authenticate } from './authenticate.js';
import { baseStack, type LambdaHandler, lambdaHandler } from './base-stack.js';
import { bodyGuard } from './body-guard.js';
import { envelope } from './envelope.js';
import { idempotency, type ReplaySealer } from './idempotency.js';
import { requireScope } from './require-scope.js';
import { usageLogAhead } from './usage-log.js';
import { validateInput } from './validate-input.js';

export type { LambdaHandler };

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

/** `sealer`: required by a route whose answer shows a secret (`secretInAnswer`), for the copy kept for replays. */
export function httpRoute<R extends Route>(route: R, intent: Intent<R>, sealer?: ReplaySealer): LambdaHandler {
  let stack = baseStack(routeGroupOf(route.path), API_PREFIX + route.path).use(envelope());
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
