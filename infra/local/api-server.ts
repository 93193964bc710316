/**
 * The local API Gateway: turns each HTTP request into the REST API (v1 proxy) event
 * AWS would send, calls the same handler module Lambda runs, and writes its result back.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from '../../functions/core/errors.js';
import { errorResponse, type LambdaHandler, requestIdFrom } from '../../functions/lib/http.js';
import { matchRoute } from '../../functions/lib/router.js';
import { API_PREFIX } from '../../functions/routes.js';

const FUNCTIONS_DIR = path.resolve(import.meta.dirname, '../../functions');
/** API Gateway's own payload limit; the handlers enforce the API's smaller one. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

const loaded = new Map<string, Promise<LambdaHandler>>();

/** Loads a handler module the way Lambda does: once, at first use. */
export function loadHandler(name: string): Promise<LambdaHandler> {
  let p = loaded.get(name);
  if (!p) {
    p = import(path.join(FUNCTIONS_DIR, 'http', `${name}.ts`)).then((m: { handler: LambdaHandler }) => m.handler);
    loaded.set(name, p);
  }
  return p;
}

export function toEvent(
  req: http.IncomingMessage,
  body: Buffer,
  resource: string | null,
  pathParameters: Record<string, string> | null,
): APIGatewayProxyEvent {
  const url = new URL(req.url ?? '/', 'http://localhost');
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
  const now = Date.now();
  return {
    resource: resource ?? '/{proxy+}',
    path: url.pathname,
    httpMethod: req.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters,
    stageVariables: null,
    body: body.length ? body.toString('utf8') : null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: `HTTP/${req.httpVersion}`,
      httpMethod: req.method ?? 'GET',
      path: url.pathname,
      stage: 'local',
      requestId: randomUUID(),
      requestTimeEpoch: now,
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
        sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
    },
  };
}

async function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const requestIdOfRequest = (req: http.IncomingMessage): string => {
  const given = req.headers['x-request-id'];
  return requestIdFrom(Array.isArray(given) ? given[0] : given);
};

function write(res: http.ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) headers[k] = v.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  res.writeHead(result.statusCode, { ...headers, 'Content-Length': String(body.length) });
  res.end(body);
}

/** Dispatches one request through the route table, exactly as API Gateway would. */
export async function dispatch(req: http.IncomingMessage, body: Buffer): Promise<APIGatewayProxyResult> {
  const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
  const match = matchRoute(req.method ?? 'GET', pathname);
  if (match.kind === 'route') {
    const handler = await loadHandler(match.route.handler);
    const params = Object.keys(match.params).length ? match.params : null;
    return handler(toEvent(req, body, API_PREFIX + match.route.path, params));
  }
  const fallback = await loadHandler('route-not-found');
  return fallback(toEvent(req, body, null, null));
}

export function createApiServer(): http.Server {
  return http.createServer((req, res) => {
    void (async () => {
      try {
        const body = await readBody(req);
        if (body === null) {
          write(res, errorResponse(new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.'), requestIdOfRequest(req)));
          return;
        }
        write(res, await dispatch(req, body));
      } catch (e) {
        // Handlers map their own errors; reaching here means the host itself failed.
        console.error(JSON.stringify({ level: 'error', message: 'local gateway failure', error: String(e) }));
        write(res, errorResponse(e, requestIdOfRequest(req)));
      }
    })();
  });
}
