/**
 * One endpoint's Lambda handler: its intent inside the shared middy stack (base-stack.ts,
 * then the key). Order matters twice over: `before` hooks run top to bottom (the
 * invocation's frame, the request metrics, request id, blocked addresses, key and limits,
 * scope, body, validation, idempotency), `after` and `onError` hooks bottom to top
 * (idempotency sees the intent's result, then the envelope, the usage log, the deprecation
 * notice, the request's headers, and last the metrics and the frame).
 *
 * Two entry points, so that a function bundles only the steps its route runs: `httpRoute`
 * for a route without a body, body-route.ts's `httpBodyRoute` for one with a body (its
 * guard, JSON parser and Idempotency-Key). The types keep each route to its own.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod/mini';
import { routeGroupOf } from '../../contract/metric-catalogue.js';
import { API_PREFIX } from '../../contract/paths.js';
import type { Route } from '../../contract/routes.js';
import type { ApiMiddleware, Caller, IntentResult, RequestState } from './api-request.js';
import { authFailureLimit } from './auth-failure-limit.js';
import { authenticate } from './authenticate.js';
import { baseStack, type LambdaHandler, lambdaHandler } from './base-stack.js';
import { envelope } from './envelope.js';
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

/**
 * The stack around an intent: the base, the envelope, the key and its scope (unless the
 * route is public), then `input` (the steps that read the request: the body's, the
 * validation, the Idempotency-Key), then the usage entry written ahead.
 */
export function routeHandler<R extends Route>(route: R, intent: Intent<R>, input: readonly ApiMiddleware[]): LambdaHandler {
  let stack = baseStack(routeGroupOf(route.path), API_PREFIX + route.path).use(envelope());
  if (route.access !== 'public') stack = stack.use(authFailureLimit()).use(authenticate()).use(requireScope(route.access));
  const handler = stack
    .use([...input])
    .use(usageLogAhead(route))
    .handler(async (event, context): Promise<IntentResult> => {
      const api: RequestState = context.api;
      // A repeated request gets the first response, and nothing is done again (decision 16).
      if (api.replay) {
        const { status, data, headers } = api.replay;
        return { status, data, headers: { ...headers, 'Idempotent-Replayed': 'true' } };
      }
      const { params, query, body } = api.input;
      return intent({ params, query, body, caller: api.caller, now: api.now, requestId: api.requestId, event } as Input<R>);
    });
  return lambdaHandler(handler);
}

/** The handler of a route that takes no body. */
export const httpRoute = <R extends Route & { readonly body?: undefined }>(route: R, intent: Intent<R>): LambdaHandler =>
  routeHandler(route, intent, [validateInput(route)]);
