/**
 * What a test of one middleware gives a bare `middy()`, as middy's own tests do: a
 * synthetic API Gateway event (headers in lower case, as the header normalizer leaves
 * them) and a Lambda context, with the request state `request-context` would have set.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { ApiContext, RequestState } from '../../functions/middleware/api-request.js';
import { type EmfLine, isEmf } from './emf.js';

export function apiEvent(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return {
    httpMethod: 'GET',
    path: '/api/v1/key',
    resource: '/api/v1/key',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { identity: { sourceIp: '198.51.100.7' } } as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

/** A Lambda context; with `state`, the request state that `request-context` sets first on every request. */
export function apiContext(state?: Partial<RequestState>): ApiContext {
  const context = {
    functionName: 'test-function',
    awsRequestId: 'aws-request-1',
    getRemainingTimeInMillis: () => 1000,
  } as unknown as ApiContext;
  if (state)
    context.api = {
      requestId: 'req_test',
      now: new Date(),
      route: { method: 'GET', path: '/api/v1/key' },
      limitHeaders: {},
      input: {},
      ...state,
    };
  return context;
}

/**
 * Runs `fn` with the log lines it writes (stdout and stderr) captured and parsed, and not
 * written: the log records in `lines`, the embedded-metric-format lines (lib/metrics.ts) in `metrics`.
 */
export async function logged<T>(fn: () => Promise<T>): Promise<{ result: T; lines: Record<string, any>[]; metrics: EmfLine[] }> {
  const written: string[] = [];
  const keep = (chunk: unknown) => written.push(String(chunk)) > 0;
  const spies = [
    jest.spyOn(process.stdout, 'write').mockImplementation(keep),
    jest.spyOn(process.stderr, 'write').mockImplementation(keep),
  ];
  try {
    const result = await fn();
    const all = written
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, any>);
    return { result, lines: all.filter((l) => !isEmf(l)), metrics: all.filter(isEmf) };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}
