/**
 * The handler of a route that takes a JSON body (every POST and PATCH): http-route.ts's
 * stack with the body's steps, which only these functions bundle. The body is guarded
 * (media type, size, an empty body where the route takes `{}`) and parsed before the
 * input is validated, and the Idempotency-Key is claimed after (decision 16).
 */
import * as z from 'zod/mini';
import type { Route } from '../../contract/routes.js';
import type { ApiMiddleware } from './api-request.js';
import { bodyGuard } from './body-guard.js';
import { type Intent, type LambdaHandler, routeHandler } from './http-route.js';
import { idempotency, type ReplaySealer } from './idempotency.js';
import { jsonBody } from './json-body.js';
import { validateInput } from './validate-input.js';

const takesNoBody = (route: Route) =>
  route.bodyOptional === true || (route.body instanceof z.ZodMiniObject && Object.keys(route.body.shape).length === 0);

/** `sealer`: required by a route whose answer shows a secret (`secretInAnswer`), for the copy kept for replays. */
export function httpBodyRoute<R extends Route & { readonly body: z.ZodMiniType }>(
  route: R,
  intent: Intent<R>,
  sealer?: ReplaySealer,
): LambdaHandler {
  const steps: ApiMiddleware[] = [
    bodyGuard(takesNoBody(route), route.bodyMediaTypes),
    jsonBody(),
    validateInput(route),
    idempotency(route, sealer),
  ];
  return routeHandler(route, intent, steps);
}
