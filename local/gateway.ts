/**
 * What API Gateway does for one request, without the network: routes it through the
 * route table, builds the REST API (v1 proxy) event AWS would send and a Lambda context,
 * and calls the very handler module Lambda runs. The local server and the tests use it.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { DASHBOARD_API_PREFIX } from '../contract/dashboard-routes.js';
import { matchDashboardRoute, matchRoute } from '../contract/router.js';
import { API_PREFIX } from '../contract/routes.js';
import type { LambdaHandler } from '../functions/middleware/base-stack.js';
import { type FunctionKind, functionLimits } from '../infra/function-limits.js';
import { runAsFunction } from './current-function.js';

const HTTP_DIR = path.resolve(import.meta.dirname, '../functions/http');
const FALLBACK = 'route-not-found';

const loaded = new Map<string, Promise<LambdaHandler>>();

/** Loads a handler module the way Lambda does: once, at first use. */
export function loadHandler(name: string): Promise<LambdaHandler> {
  let p = loaded.get(name);
  if (!p) {
    p = import(path.join(HTTP_DIR, `${name}.ts`)).then((m: { handler: LambdaHandler }) => m.handler);
    loaded.set(name, p);
  }
  return p;
}

export interface GatewayRequest {
  method: string;
  /** Path and query, e.g. `/api/v1/deployments?page=2`. */
  url: string;
  /** Header names and values in the order sent, as Node's `rawHeaders` holds them. */
  rawHeaders: readonly string[];
  body: Buffer;
  sourceIp?: string;
  protocol?: string;
}

/**
 * The request target as a URL. A target is a path from the root (or, from a proxy, an
 * absolute URL): `//x` is the path `//x`, not a host named x as a relative reference would
 * read it, and a target that is neither (`*`) is taken as a path too.
 */
export function targetUrl(target: string): URL {
  if (target.startsWith('/')) return new URL(`http://localhost${target}`);
  try {
    return new URL(target);
  } catch {
    return new URL(`http://localhost/${target}`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A body that is not UTF-8 text travels base64-encoded, its bytes intact, as API Gateway does with binary. */
function encodeBody(body: Buffer): { body: string | null; isBase64Encoded: boolean } {
  if (body.length === 0) return { body: null, isBase64Encoded: false };
  try {
    return { body: utf8.decode(body), isBase64Encoded: false };
  } catch {
    return { body: body.toString('base64'), isBase64Encoded: true };
  }
}

export function gatewayEvent(
  req: GatewayRequest,
  resource: string | null,
  pathParameters: Record<string, string> | null,
): APIGatewayProxyEvent {
  const url = targetUrl(req.url);
  // No prototype: a header or parameter named `constructor` or `__proto__` is just a name,
  // as it is in the event API Gateway sends (parsed from JSON, where such keys are own properties).
  const headers: Record<string, string> = Object.create(null);
  const multiValueHeaders: Record<string, string[]> = Object.create(null);
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    headers[name] = value;
    multiValueHeaders[name] = [...(multiValueHeaders[name] ?? []), value];
  }
  const query: Record<string, string> = Object.create(null);
  const multiQuery: Record<string, string[]> = Object.create(null);
  for (const [k, v] of url.searchParams) {
    query[k] = v;
    multiQuery[k] = [...(multiQuery[k] ?? []), v];
  }
  const hasQuery = Object.keys(query).length > 0;
  return {
    resource: resource ?? '/{proxy+}',
    path: url.pathname,
    httpMethod: req.method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters,
    stageVariables: null,
    ...encodeBody(req.body),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: req.protocol ?? 'HTTP/1.1',
      httpMethod: req.method,
      path: url.pathname,
      stage: 'local',
      requestId: randomUUID(),
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: resource ?? '/{proxy+}',
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: req.sourceIp ?? '127.0.0.1',
        user: null,
        userAgent: headers['User-Agent'] ?? headers['user-agent'] ?? null,
        userArn: null,
      },
    },
  };
}

/** The context Lambda passes to a handler (what `sam local invoke` fakes too), with the function's own timeout and memory. */
export function lambdaContext(kind: FunctionKind, functionName: string): Context {
  const { timeoutSeconds, memoryMb } = functionLimits(kind, functionName);
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${functionName}`,
    memoryLimitInMB: String(memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * Calls a handler as Lambda would: one invocation of the named function, with the context
 * Lambda passes (its request id also the invocation's in the local InvokeStore).
 */
export function invokeAs<T>(kind: FunctionKind, name: string, call: (context: Context) => Promise<T>): Promise<T> {
  const context = lambdaContext(kind, name);
  return runAsFunction(name, () => call(context), context.awsRequestId);
}

/** Routes the request and calls its handler (or the fallback, for 404 and 405), exactly as API Gateway would. */
export async function invokeGateway(req: GatewayRequest): Promise<APIGatewayProxyResult> {
  const { pathname } = targetUrl(req.url);
  const dashboard = pathname.startsWith(`${DASHBOARD_API_PREFIX}/`);
  const match = (dashboard ? matchDashboardRoute : matchRoute)(req.method, pathname);
  const name = match.kind === 'route' ? match.route.handler : FALLBACK;
  const prefix = dashboard ? DASHBOARD_API_PREFIX : API_PREFIX;
  const event =
    match.kind === 'route'
      ? gatewayEvent(req, prefix + match.route.path, Object.keys(match.params).length ? match.params : null)
      : gatewayEvent(req, null, null);
  const handler = await loadHandler(name);
  return invokeAs('http', name, (context) => handler(event, context));
}
