/**
 * Requests no route takes (decision 33): 404 NOT_FOUND for an unknown path, 405
 * METHOD_NOT_ALLOWED with Allow for a known path, both through the route table and the
 * fallback handler, in-process and through the local HTTP server.
 */

import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiServer } from '../../local/api-server.js';
import { invokeGateway } from '../../local/gateway.js';
import { call, createKey } from '../helpers/fixtures.js';

describe('unknown paths', () => {
  it.each(['/nope', '/deployment', '/environments/env_default/extra', '/deployments/abc/users/x', '/v2/deployments'])(
    'GET %s is 404 NOT_FOUND, with or without a key',
    async (path) => {
      const { key } = await createKey();
      for (const res of [await call('GET', path), await call('GET', path, { key })]) {
        expect(res.status).toBe(404);
        expect(res.body.error).toEqual({
          code: 'NOT_FOUND',
          message: expect.stringContaining(path),
          request_id: res.headers['x-request-id'],
        });
        expect(res.headers.allow).toBeUndefined();
      }
    },
  );
});

describe('request targets that are not plain paths', () => {
  // Found by the generated requests (generated-input.test.ts): `//` read as a URL relative
  // to a base is a host-less authority and threw, a 500 from the local gateway.
  it.each([
    ['//', '//'],
    ['///api/v1/key', '///api/v1/key'],
    ['*', '/*'],
  ])('%s is 404 NOT_FOUND for the path %s', async (target, path) => {
    const res = await invokeGateway({ method: 'GET', url: target, rawHeaders: [], body: Buffer.alloc(0) });
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'NOT_FOUND', message: `No endpoint at GET ${path}.` });
  });
});

describe('known paths, other methods', () => {
  it.each([
    ['DELETE', '/environments', 'GET'],
    ['POST', '/environments/env_default', 'GET'],
    ['POST', '/key', 'GET'],
    ['PUT', '/deployments', 'GET, POST'],
    ['PUT', '/deployments/7d4f6f0e-1111-4222-8333-944444444444', 'GET, PATCH, DELETE'],
    ['GET', '/deployments/7d4f6f0e-1111-4222-8333-944444444444/dag-syncs', 'POST'],
    ['DELETE', '/operations', 'GET'],
    ['GET', '/operations/op_x/cancel', 'POST'],
  ])('%s %s is 405 with Allow: %s (any order)', async (method, path, allow) => {
    const res = await call(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.allow?.split(', ').sort()).toEqual(allow.split(', ').sort());
    expect(res.body.error).toEqual({
      code: 'METHOD_NOT_ALLOWED',
      message: expect.stringContaining(method),
      request_id: res.headers['x-request-id'],
    });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });
});

it('a trailing slash reaches the same route', async () => {
  const { key } = await createKey();
  expect((await call('GET', '/environments/', { key })).status).toBe(200);
});

describe('through the local HTTP server (npm start)', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = createApiServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });

  it('turns HTTP into events and results back into HTTP', async () => {
    const { key, record } = await createKey();
    const ok = await fetch(`${base}/key`, { headers: { 'X-API-Key': key, 'X-Request-Id': 'http-1' } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(ok.headers.get('x-request-id')).toBe('http-1');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('999');
    expect(((await ok.json()) as { data: { id: string } }).data.id).toBe(record.id);

    const list = await fetch(`${base}/environments?per_page=1`, { headers: { 'x-api-key': key } });
    expect(((await list.json()) as { data: { pagination: unknown } }).data.pagination).toEqual({
      page: 1,
      per_page: 1,
      total: 1,
      pages: 1,
    });

    const missing = await fetch(`${base}/missing`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');

    const wrong = await fetch(`${base}/environments`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    await wrong.arrayBuffer();
  });
});
