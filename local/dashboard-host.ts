/**
 * What `npm start` serves for the dashboard besides its API (which the gateway routes
 * like any other): the built web app at /dashboard, its config.json, and the emulated
 * user pool at /cognito. On AWS the app comes from S3 through CloudFront and the pool is Cognito.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { DASHBOARD_API_PREFIX } from '../contract/dashboard-routes.js';
import { buildDashboard, DASHBOARD_PATH, type SiteFile, securityHeaders } from '../dashboard/build.js';
import type { DashboardConfig } from '../dashboard/src/config.js';
import { LOCAL_CLIENT_ID, LOCAL_USER_POOL_ID, LocalUserPool, USER_POOL_PATH } from './user-pool.js';

export interface LocalRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Answers what it serves; undefined passes the request on to the API gateway. */
export type LocalRoutes = (req: LocalRequest) => Promise<APIGatewayProxyResult | undefined>;

export interface DashboardHost {
  routes: LocalRoutes;
  /** The pool's issuer once the server's port is known (tokens carry it; the dashboard API checks it). */
  issuerFor(port: number): string;
}

const CONFIG: DashboardConfig = { userPoolEndpoint: `${USER_POOL_PATH}/`, clientId: LOCAL_CLIENT_ID, apiBase: DASHBOARD_API_PREFIX };

export async function startDashboardHost(options: {
  dataDir: string | null;
  tokenSeconds: number;
  adminAccessKeyId?: string;
}): Promise<DashboardHost> {
  const site = buildDashboard();
  const pool = await LocalUserPool.open(options);
  site.set('config.json', { body: Buffer.from(JSON.stringify(CONFIG)), contentType: 'application/json', immutable: false });
  const headers = securityHeaders();
  const answer = (file: SiteFile): APIGatewayProxyResult => ({
    statusCode: 200,
    headers: {
      ...headers,
      'Content-Type': file.contentType,
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
    body: file.body.toString('base64'),
    isBase64Encoded: true,
  });
  return {
    issuerFor(port) {
      pool.issuer = `http://127.0.0.1:${port}${USER_POOL_PATH}/${LOCAL_USER_POOL_ID}`;
      return pool.issuer;
    },
    async routes(req) {
      const { pathname } = new URL(req.url, 'http://localhost');
      if (pathname.startsWith(`${USER_POOL_PATH}/`)) {
        const target = req.headers['x-amz-target'];
        const a = await pool.handle(
          req.method,
          pathname.slice(USER_POOL_PATH.length),
          Array.isArray(target) ? target[0] : target,
          req.body,
          [req.headers.authorization].flat()[0],
        );
        return { statusCode: a.status, headers: a.headers, body: a.body };
      }
      if (pathname.startsWith(`${DASHBOARD_API_PREFIX}/`) || !(pathname === DASHBOARD_PATH || pathname.startsWith(`${DASHBOARD_PATH}/`)))
        return undefined;
      if (pathname === DASHBOARD_PATH) return { statusCode: 308, headers: { Location: `${DASHBOARD_PATH}/`, ...headers }, body: '' };
      const file = site.get(pathname.slice(DASHBOARD_PATH.length + 1) || 'index.html');
      if (!file || (req.method !== 'GET' && req.method !== 'HEAD'))
        return { statusCode: 404, headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }, body: 'Not found' };
      return answer(file);
    },
  };
}
