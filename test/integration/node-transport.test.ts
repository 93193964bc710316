/**
 * deployctl's transport (client/cli/node-transport.ts, decision 302): node:http in place of
 * the global fetch, answering what the client reads of a Response, following no redirect,
 * reporting a refused connection and an abort as fetch does.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeFetch } from '../../client/cli/node-transport.js';
import { runProcess } from '../helpers/run-process.js';

let server: http.Server;
let base: string;
const seen: { method?: string; headers: IncomingMessage['headers']; body: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body });
      if (req.url === '/moved') {
        res.writeHead(302, { Location: 'http://elsewhere.example/' }).end();
      } else if (req.url === '/hang') {
        // Never answered: the caller's signal must end it.
      } else {
        res.writeHead(201, { 'Content-Type': 'application/json', 'X-Request-Id': 'req_1', 'Set-Cookie': ['a=1', 'b=2'] });
        res.end(JSON.stringify({ data: { got: body, é: 'ü' } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("deployctl's node:http transport", () => {
  it('sends the method, headers and body, and answers status, headers (any case) and the body as text or bytes', async () => {
    const res = await nodeFetch(`${base}/things`, {
      method: 'POST',
      headers: { 'X-API-Key': 'k', 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'x-api-key': 'k' } });
    expect([res.status, res.ok]).toEqual([201, true]);
    expect(res.headers.get('x-request-id')).toBe('req_1');
    expect(res.headers.get('X-REQUEST-ID')).toBe('req_1');
    expect(res.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(res.headers.get('retry-after')).toBeNull();
    expect(JSON.parse(await res.text())).toEqual({ data: { got: '{"a":1}', é: 'ü' } });
    const again = await nodeFetch(`${base}/things`, { headers: [['Accept', 'application/json']] });
    expect(seen.at(-1)?.headers.accept).toBe('application/json');
    expect(new TextDecoder().decode(await again.arrayBuffer())).toContain('"é":"ü"');
  });

  it('hands a redirect back instead of following it', async () => {
    const before = seen.length;
    const res = await nodeFetch(`${base}/moved`, { headers: { 'X-API-Key': 'secret' }, redirect: 'manual' });
    expect([res.status, res.ok, res.headers.get('location')]).toEqual([302, false, 'http://elsewhere.example/']);
    expect(seen.length).toBe(before + 1);
  });

  it('reports a refused connection as fetch does: a TypeError whose cause says why', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const failure = await nodeFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as { cause?: Error }).cause?.message).toContain('ECONNREFUSED');
  });

  it('stops waiting when the signal aborts, before or during the request', async () => {
    const controller = new AbortController();
    const pending = nodeFetch(`${base}/hang`, { signal: controller.signal }).catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error('enough')), 50);
    expect(await pending).toBeInstanceOf(Error);
    expect(controller.signal.aborted).toBe(true);
    await expect(nodeFetch(`${base}/things`, { signal: AbortSignal.abort(new Error('already')) })).rejects.toThrow('already');
  });

  it('loads no undici: a process that sends a request through it never loads the module behind the global fetch', async () => {
    // process.moduleLoadList names every built-in module loaded so far, Node's bundled undici among them once loaded.
    const script = `
      const { nodeFetch } = await import(${JSON.stringify(new URL('../../client/cli/node-transport.ts', import.meta.url).href)});
      const res = await nodeFetch(${JSON.stringify(`${base}/things`)});
      await res.text();
      console.log(JSON.stringify({ status: res.status, undici: process.moduleLoadList.filter((m) => m.includes('undici')) }));
    `;
    const out = await runProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 30_000,
    });
    expect([out.code, out.stderr]).toEqual([0, '']);
    expect(JSON.parse(out.stdout)).toEqual({ status: 201, undici: [] });
  });
});
