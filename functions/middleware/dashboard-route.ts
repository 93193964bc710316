/**
 * One dashboard API endpoint: its intent inside the shared stack (request id, headers,
 * error mapping, envelope), behind the user's token and role instead of an API key.
 * Nothing here is logged as key usage: the usage log is the API keys' (decision 34).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod/mini';
import { DASHBOARD_API_PREFIX, type DashboardRoute } from '../../contract/dashboard-routes.js';
import type { DashboardUser } from '../../contract/dashboard-users.js';
import { DASHBOARD_ROUTE_GROUP } from '../../contract/metric-catalogue.js';
import type { IntentResult, RequestState } from './api-request.js';
import { authorizeUser } from './authorize-user.js';
import { baseStack, type LambdaHandler, lambdaHandler } from './base-stack.js';
import { bodyGuard } from './body-guard.js';
import { envelope } from './envelope.js';
import { jsonBody } from './json-body.js';
import { validateInput } from './validate-input.js';

type Out<S> = S extends z.ZodMiniType ? z.output<S> : undefined;

export interface DashboardInput<R extends DashboardRoute> {
  params: Out<R['params']>;
  query: Out<R['query']>;
  body: Out<R['body']>;
  user: DashboardUser;
  now: Date;
  event: APIGatewayProxyEvent;
}

export function dashboardRoute<R extends DashboardRoute>(
  route: R,
  intent: (input: DashboardInput<R>) => Promise<IntentResult>,
): LambdaHandler {
  let stack = baseStack(DASHBOARD_ROUTE_GROUP, DASHBOARD_API_PREFIX + route.path)
    .use(envelope())
    .use(authorizeUser(route.role));
  if (route.body) stack = stack.use(bodyGuard(route.bodyOptional === true)).use(jsonBody());
  const handler = stack.use(validateInput(route)).handler(async (event, context): Promise<IntentResult> => {
    const api: RequestState = context.api;
    const { params, query, body } = api.input;
    return intent({ params, query, body, user: api.user!, now: api.now, event } as DashboardInput<R>);
  });
  return lambdaHandler(handler);
}
