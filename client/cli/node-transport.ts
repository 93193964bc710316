/**
 * deployctl's HTTP transport: node:http (node:https for an https URL) in place of the global
 * fetch, whose first call loads Node's bundled undici, about 50 ms of every command's start
 * (decision 302). It answers with the part of a Response that the client and `events listen`
 * read (status, ok, headers.get, text, arrayBuffer), follows no redirect (what
 * `redirect: 'manual'` asks, so an API key is never sent on), and stops at the abort signal.
 * A failure to connect is reported as fetch reports it: a TypeError whose cause says why.
 */
import type { IncomingMessage } from 'node:http';

type Sent = Parameters<typeof fetch>[1];

/** The request's headers as a plain object: the callers give a record or name-value pairs. */
function headersOf(given: NonNullable<Sent>['headers']): Record<string, string> {
  if (given === undefined) return {};
  if (Array.isArray(given)) return Object.fromEntries(given);
  if (typeof (given as Headers).forEach === 'function') {
    const out: Record<string, string> = {};
    (given as Headers).forEach((value, name) => {
      out[name] = value;
    });
    return out;
  }
  return given as Record<string, string>;
}

/** What the callers read of a Response, from Node's answer and its whole body. */
function answerOf(res: IncomingMessage, body: Buffer) {
  const status = res.statusCode ?? 0;
  return {
    status,
    statusText: res.statusMessage ?? '',
    ok: status >= 200 && status < 300,
    type: 'basic',
    url: '',
    redirected: false,
    headers: {
      get(name: string): string | null {
        const value = res.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : String(value);
      },
    },
    text: async () => body.toString('utf8'),
    json: async () => JSON.parse(body.toString('utf8')) as unknown,
    arrayBuffer: async () => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength),
  };
}

export const nodeFetch = async (input: Parameters<typeof fetch>[0], init: Sent = {}): Promise<Response> => {
  const url = new URL(String(input));
  // Only an https URL loads TLS. getBuiltinModule, not import(): an ES import of node:http
  // evaluates every export, and one of them loads undici, the cost this module avoids.
  const { request } = url.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const body = init.body === undefined || init.body === null ? undefined : String(init.body);
  const answer = await new Promise<ReturnType<typeof answerOf>>((resolve, reject) => {
    const failed = (cause: unknown) => reject(new TypeError('fetch failed', { cause }));
    const req = request(url, { method: init.method ?? 'GET', headers: headersOf(init.headers), signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => resolve(answerOf(res, Buffer.concat(chunks))));
      res.once('error', failed);
      res.once('close', () => {
        if (!res.complete) failed(new Error('the connection closed before the whole answer came'));
      });
    });
    req.once('error', failed);
    req.end(body);
  });
  // The callers read only the members answerOf gives (status, ok, type, headers.get, text, json, arrayBuffer).
  return answer as unknown as Response;
};
