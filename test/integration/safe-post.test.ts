/**
 * Outbound webhook POSTs (decision 38): the creation-time URL check, the public-address
 * rule, and safePost against real servers on 127.0.0.1. No traffic leaves the machine:
 * names other than localhost are resolved by a stand-in lookup that answers 127.0.0.1
 * or is never asked to connect.
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import tls from 'node:tls';
import { isPublicAddress, safePost, webhookUrlProblem } from '../../functions/adapters/http-out/safe-post.js';

interface Received {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface TestServer {
  port: number;
  url: string;
  received: Received[];
  connections: number;
  close(): Promise<void>;
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Listens on 127.0.0.1, records every connection and request, and is closed after the test. */
async function startServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<TestServer> {
  const server = http.createServer();
  const state: TestServer = { port: 0, url: '', received: [], connections: 0, close: async () => {} };
  server.on('connection', () => state.connections++);
  server.on('request', (req, res) => {
    const entry: Received = { method: req.method, url: req.url, headers: req.headers, body: '' };
    state.received.push(entry);
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      entry.body += chunk;
    });
    req.on('end', () => answer(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}`;
  state.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  open.push(state);
  return state;
}

/** A TCP listener that only counts connections: for URLs that must never be contacted. */
async function startCounter(): Promise<{ port: number; connections: () => number }> {
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  let count = 0;
  server.on('connection', () => count++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  });
  return { port: (server.address() as AddressInfo).port, connections: () => count };
}

/** A stand-in resolver: every name is `addresses`, and the names asked are recorded. */
function fakeLookup(...addresses: string[]) {
  const asked: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    return addresses.map((address) => ({ address, family: net.isIP(address) }));
  };
  return { asked, lookup };
}

const insecure = { allowInsecure: true };
const secure = { allowInsecure: false };

describe('webhookUrlProblem', () => {
  it.each(['https://example.com/hook', 'https://8.8.8.8/hook', 'https://[2606:4700:4700::1111]/x', 'https://example.com:8443/a?b=c'])(
    'accepts %s',
    (url) => {
      expect(webhookUrlProblem(url, false)).toBeUndefined();
    },
  );

  it.each([
    ['http://example.com', 'must be an absolute https URL'],
    ['ftp://example.com/x', 'must be an absolute https URL'],
    ['/relative/hook', 'must be an absolute https URL'],
    ['example.com/hook', 'must be an absolute https URL'],
    ['not a url', 'must be an absolute https URL'],
    ['', 'must be an absolute https URL'],
    ['https://user:pw@example.com', 'must not contain a user or password'],
    ['https://user@example.com', 'must not contain a user or password'],
  ])('refuses %s: %s', (url, problem) => {
    expect(webhookUrlProblem(url, false)).toBe(problem);
  });

  it('accepts a URL of 2048 characters and refuses one of 2049', () => {
    const ofLength = (n: number) => `https://example.com/${'a'.repeat(n - 'https://example.com/'.length)}`;
    expect(ofLength(2049)).toHaveLength(2049);
    expect(webhookUrlProblem(ofLength(2048), false)).toBeUndefined();
    expect(webhookUrlProblem(ofLength(2049), false)).toBe('must be at most 2048 characters');
    expect(webhookUrlProblem(ofLength(2049), true)).toBe('must be at most 2048 characters');
  });

  it.each([
    'https://10.0.0.1',
    'https://127.0.0.1/x',
    'https://[::1]',
    'https://[::ffff:127.0.0.1]',
    'https://[::ffff:169.254.169.254]/latest/meta-data',
    'https://169.254.169.254',
    'https://192.168.1.1',
    'https://172.16.0.1',
    'https://[fd00::1]',
    'https://[fe80::1]',
    'https://100.64.0.1',
    'https://0.0.0.0',
    'https://[::]',
    'https://224.0.0.1',
    'https://255.255.255.255',
    'https://2130706433', // 127.0.0.1, as URL normalizes it
    'https://0x7f.1', // 127.0.0.1 too
    'https://[2002:7f00:1::]', // 6to4 around 127.0.0.1
    'https://localhost',
    'https://localhost:8443/x',
    'https://LOCALHOST.',
    'https://api.localhost',
  ])('refuses the non-public host of %s', (url) => {
    expect(webhookUrlProblem(url, false)).toBe('must not point at a loopback, private or link-local address');
  });

  it('allows http and any host when insecure URLs are allowed', () => {
    expect(webhookUrlProblem('http://127.0.0.1:3000/x', true)).toBeUndefined();
    expect(webhookUrlProblem('http://localhost:3000/x', true)).toBeUndefined();
    expect(webhookUrlProblem('https://[::1]/x', true)).toBeUndefined();
    // Still: only http(s), no credentials, bounded.
    expect(webhookUrlProblem('ftp://127.0.0.1/x', true)).toBe('must be an absolute http or https URL');
    expect(webhookUrlProblem('http://u:p@127.0.0.1/x', true)).toBe('must not contain a user or password');
  });
});

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.251',
    '192.0.2.1',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    'fd00::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    '2002:7f00:1::',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '64:ff9b::7f00:1',
    'example.com',
    '',
  ])('%s is not public', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });
});

describe('safePost', () => {
  it('POSTs the body and headers, and returns the 2xx status', async () => {
    const server = await startServer((_req, res) => res.writeHead(204).end());
    const body = JSON.stringify({ type: 'deployment.ready', data: { id: 'dep_1' } });
    const result = await safePost(
      `${server.url}/hooks/in?x=1`,
      body,
      { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'Content-Length': '1', Host: 'evil' },
      insecure,
    );

    expect(result).toEqual({ status: 204, body: '' });
    expect(server.received).toHaveLength(1);
    const [got] = server.received;
    expect(got).toMatchObject({ method: 'POST', url: '/hooks/in?x=1', body });
    expect(got!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'msg_1',
      'content-length': String(Buffer.byteLength(body)),
      host: `127.0.0.1:${server.port}`,
    });
  });

  it('returns a non-2xx status and the start of its body', async () => {
    const server = await startServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('boom'));
    expect(await safePost(server.url, '{}', {}, insecure)).toEqual({ status: 500, body: 'boom' });
  });

  it('does not follow a redirect: a 302 is the answer', async () => {
    const elsewhere = await startServer((_req, res) => res.writeHead(200).end());
    const server = await startServer((_req, res) => res.writeHead(302, { location: `${elsewhere.url}/stolen` }).end());
    const result = await safePost(server.url, '{}', {}, insecure);

    expect(result.status).toBe(302);
    expect(server.received).toHaveLength(1);
    expect(elsewhere.connections).toBe(0);
  });

  it('gives up on a server that never answers', async () => {
    const server = await startServer(() => {}); // reads the request, never answers
    const started = Date.now();
    const result = await safePost(server.url, '{}', {}, { ...insecure, timeoutMs: 300 });

    expect(result).toEqual({ status: null, error: 'timed out' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(server.received).toHaveLength(1);
  });

  it('gives up on a name that does not resolve in time', async () => {
    const lookup = () => new Promise<LookupAddress[]>(() => {});
    const result = await safePost('http://slow.example/x', '{}', {}, { ...insecure, timeoutMs: 100, lookup });
    expect(result).toEqual({ status: null, error: 'timed out' });
  });

  it('reads at most maxBodyBytes of an endless answer and hangs up', async () => {
    let hungUp: () => void;
    const serverSawClose = new Promise<void>((resolve) => {
      hungUp = resolve;
    });
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => hungUp());
      pump();
    });
    const started = Date.now();
    const result = await safePost(server.url, '{}', {}, { ...insecure, maxBodyBytes: 1000 });

    expect(result.status).toBe(200);
    expect(result.body).toBe('x'.repeat(1000));
    expect(Date.now() - started).toBeLessThan(2000);
    await serverSawClose; // the socket was closed, not left draining
  });

  it('counts an answer whose body stalls: the status arrived in time, the body is what came', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial'); // and never ends
    });
    const result = await safePost(server.url, '{}', {}, { ...insecure, timeoutMs: 300 });
    expect(result).toEqual({ status: 200, body: 'partial' });
  });

  it('reports a refused connection', async () => {
    const probe = await startServer(() => {});
    const { port } = probe;
    await probe.close();
    expect(await safePost(`http://127.0.0.1:${port}/x`, '{}', {}, insecure)).toEqual({ status: null, error: 'ECONNREFUSED' });
  });

  it('connects to the address it resolved and checked, keeping the name in Host', async () => {
    const server = await startServer((_req, res) => res.writeHead(200).end('ok'));
    const { asked, lookup } = fakeLookup('127.0.0.1');
    const result = await safePost(`http://hooks.customer.example:${server.port}/in`, '{}', {}, { ...insecure, lookup });

    expect(result).toEqual({ status: 200, body: 'ok' });
    expect(asked).toEqual(['hooks.customer.example']); // resolved once, by us
    expect(server.received[0]!.headers.host).toBe(`hooks.customer.example:${server.port}`);
  });

  it('over https, presents the name (not the pinned address) for TLS', async () => {
    let servername: string | undefined;
    const sockets = new Set<tls.TLSSocket>();
    // No certificate: the handshake fails after the server has seen the client's SNI.
    const server = tls.createServer({
      SNICallback: (name, cb) => {
        servername = name;
        cb(new Error('no certificate here'));
      },
    });
    server.on('secureConnection', (s) => sockets.add(s));
    server.on('tlsClientError', (_err, s) => s.destroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    open.push({ close: () => new Promise((resolve) => server.close(() => resolve())) });
    const { port } = server.address() as AddressInfo;
    const { lookup } = fakeLookup('127.0.0.1');
    const result = await safePost(`https://hooks.customer.example:${port}/in`, '{}', {}, { ...insecure, timeoutMs: 2000, lookup });

    expect(result.status).toBeNull();
    expect(result.error).toMatch(/^(ECONNRESET|ERR_SSL_\w+)$/);
    expect(servername).toBe('hooks.customer.example');
  });

  describe('without allowInsecure', () => {
    it('refuses http to 127.0.0.1 without connecting', async () => {
      const server = await startServer((_req, res) => res.writeHead(200).end());
      const result = await safePost(`${server.url}/x`, '{}', {}, secure);

      expect(result.status).toBeNull();
      expect(result.error).toMatch(/^refused: /);
      expect(server.connections).toBe(0);
    });

    it('refuses https://localhost without connecting', async () => {
      const counter = await startCounter();
      const result = await safePost(`https://localhost:${counter.port}/x`, '{}', {}, secure);

      expect(result).toEqual({ status: null, error: 'refused: url must not point at a loopback, private or link-local address' });
      expect(counter.connections()).toBe(0);
    });

    it('refuses a name that resolves to 127.0.0.1 without connecting', async () => {
      const counter = await startCounter();
      const { asked, lookup } = fakeLookup('127.0.0.1');
      const result = await safePost(`https://hooks.customer.example:${counter.port}/x`, '{}', {}, { ...secure, lookup });

      expect(result).toEqual({ status: null, error: 'refused: hooks.customer.example resolves to a non-public address' });
      expect(asked).toEqual(['hooks.customer.example']);
      expect(counter.connections()).toBe(0);
    });

    it('refuses a name when any of its addresses is not public', async () => {
      const counter = await startCounter();
      // Public first, so a client that tried addresses in order would have been safe only by luck.
      const { lookup } = fakeLookup('8.8.8.8', '169.254.169.254');
      const result = await safePost(`https://rebind.example:${counter.port}/x`, '{}', {}, { ...secure, lookup });

      expect(result).toEqual({ status: null, error: 'refused: rebind.example resolves to a non-public address' });
      expect(counter.connections()).toBe(0);
    });

    it('refuses a name that resolves to nothing', async () => {
      const { lookup } = fakeLookup();
      expect(await safePost('https://nothing.example/x', '{}', {}, { ...secure, lookup })).toEqual({ status: null, error: 'ENOTFOUND' });
    });
  });
});
