/** The local API server on a free loopback port, for the calling test file or describe block. */
import type http from 'node:http';
import { API_PREFIX } from '../../contract/routes.js';
import { createApiServer } from '../../local/api-server.js';
import { close, listen } from './scripted-api.js';

/** `baseUrl` is set once the server listens (before the first test). */
export function localApi(): { baseUrl: string } {
  const api = { baseUrl: '' };
  let server: http.Server;
  beforeAll(async () => {
    server = createApiServer();
    api.baseUrl = `${await listen(server)}${API_PREFIX}`;
  });
  afterAll(() => close(server));
  return api;
}
