/**
 * The local API Gateway: turns each HTTP request into the REST API (v1 proxy) event
 * AWS would send, calls the same handler module Lambda runs, and writes its result back.
 */
import http from 'node:http';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { apiError } from '../contract/errors.js';
import { logger } from '../functions/lib/logger.js';
import { errorEnvelope, requestIdFrom } from '../functions/middleware/responses.js';
import type { LocalRoutes } from './dashboard-host.js';
import { invokeGateway } from './gateway.js';
import { refusedForeignHost } from './loopback-host.js';

/** API Gateway's own payload limit; the handlers enforce the API's smaller one. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

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

/**
 * `local` answers what the host serves itself (the dashboard app and the emulated user pool)
 * before the gateway routes the rest; `host` is the configured HOST, a name it also answers to.
 */
export function createApiServer(local?: LocalRoutes, host?: string): http.Server {
  const server = http.createServer((req, res) => {
    if (refusedForeignHost(req, res, host)) return;
    void (async () => {
      try {
        const body = await readBody(req);
        if (body === null) {
          write(res, errorEnvelope(apiError('PAYLOAD_TOO_LARGE'), requestIdOfRequest(req)));
          return;
        }
        const { method = 'GET', url = '/', rawHeaders, httpVersion } = req;
        const own = await local?.({ method, url, headers: req.headers, body });
        if (own) {
          write(res, own);
          return;
        }
        write(
          res,
          await invokeGateway({ method, url, rawHeaders, body, sourceIp: req.socket.remoteAddress, protocol: `HTTP/${httpVersion}` }),
        );
      } catch (e) {
        // Handlers map their own errors; reaching here means the host itself failed.
        logger.error('local gateway failure', { error: e as Error });
        write(res, errorEnvelope(e, requestIdOfRequest(req)));
      }
    })();
  });
  // A client reuses an idle connection until shortly before the timeout the server
  // advertises (Keep-Alive: timeout=N). Node's default of 5 s leaves a margin of about a
  // second, which a loaded machine's pause can eat: the client then sends on a connection
  // the server is closing and gets "other side closed". A minute, as load balancers keep,
  // puts that race where clients seldom idle.
  server.keepAliveTimeout = 65_000;
  return server;
}
