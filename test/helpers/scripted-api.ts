/**
 * Test doubles for client-side code: a virtual clock, and an HTTP server that answers
 * with a script (errors, dropped connections, held or unanswered requests, operations),
 * so waiting can be tested without real waiting.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock, Operation } from '../../client/index.js';

export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function close(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export type VirtualClock = Clock & {
  /** Every sleep, in ms. */
  slept: number[];
  /** Moves the clock on, as time passing on the server's side would (a held wait request). */
  advance(ms: number): void;
};

/** Virtual time: sleeping moves the clock and returns at once. */
export function virtualClock(): VirtualClock {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      slept.push(ms);
      t += ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/**
 * An answer: a status and body (`holdMs` moves a virtual clock on first, as a held wait
 * would); 'drop' closes the connection without an answer; 'hang' never answers (until
 * the server is closed or the client gives up).
 */
export type Step = { status: number; body?: unknown; headers?: Record<string, string>; holdMs?: number } | 'drop' | 'hang';

export interface Seen {
  /** The clock's time when the request came. */
  at: number;
  method: string;
  /** Path and query, as sent. */
  path: string;
  key: string | undefined;
}

/** The steps in order, or a function that answers each request. */
export type Script = Step[] | ((req: Seen) => Step | undefined);

/**
 * A server that answers each request with the next scripted step (or what the script
 * function says), noting the clock's time it came at. With `repeatLast` the last step of
 * a list answers every request once the others are used.
 */
export function scriptedServer(clock: Clock & { advance?(ms: number): void }, script: Script, repeatLast = false) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const request = {
      at: clock.now(),
      method: req.method ?? 'GET',
      path: req.url ?? '',
      key: req.headers['x-api-key'] as string | undefined,
    };
    seen.push(request);
    const step = typeof script === 'function' ? script(request) : script.length > 1 || !repeatLast ? script.shift() : script[0];
    if (!step) {
      res.writeHead(500).end();
      return;
    }
    if (step === 'hang') return;
    if (step === 'drop') {
      req.socket.destroy();
      return;
    }
    if (step.holdMs) clock.advance?.(step.holdMs);
    res.writeHead(step.status, {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Request-Id': `req_${seen.length}`,
      ...step.headers,
    });
    res.end(JSON.stringify(step.body ?? {}));
  });
  return { server, seen };
}

/** A script that answers GET /operations/{id} from `get` and GET /operations/{id}/wait from `wait`, each list in order, the last step repeated. */
export function routedScript(steps: { get?: Step[]; wait?: Step[]; other?: Step[] }): Script {
  const next = (list: Step[] | undefined) => (list && list.length > 1 ? list.shift() : list?.[0]);
  return (req) => {
    const path = req.path.split('?')[0]!;
    if (req.method === 'GET' && path.endsWith('/wait')) return next(steps.wait);
    if (req.method === 'GET' && /\/operations\/[^/]+$/.test(path)) return next(steps.get);
    return next(steps.other);
  };
}

/** The query of a request the scripted server saw. */
export const queryOf = (s: Seen) => Object.fromEntries(new URL(s.path, 'http://x').searchParams);

export const OP_ID = `op_${randomUUID()}`;
export const DEP_ID = randomUUID();
export const operation = (status: Operation['status'], phase: Operation['progress']['phase']): Operation => ({
  id: OP_ID,
  type: 'deployment.create',
  status,
  progress: { phase, message: `Now ${phase}` },
  resource: { type: 'deployment', id: DEP_ID },
  requested_at: '2026-11-22T06:40:00.000Z',
  ...(status !== 'queued' ? { started_at: '2026-11-22T06:40:01.000Z' } : {}),
  ...(['succeeded', 'failed', 'canceled'].includes(status) ? { ended_at: '2026-11-22T06:41:00.000Z' } : {}),
  ...(status === 'succeeded' ? { result: { url: `https://airflow.${DEP_ID}.apps.example.com` } } : {}),
  links: { self: `/api/v1/operations/${OP_ID}`, resource: `/api/v1/deployments/${DEP_ID}` },
});
export const ok = (op: Operation): Step => ({ status: 200, body: { data: op } });
/** The wait route's answer, after holding the request `holdMs` (virtual time). */
export const held = (op: Operation, holdMs: number): Step => ({ status: 200, body: { data: op }, holdMs });
export const error = (status: number, code: string, headers?: Record<string, string>): Step => ({
  status,
  body: { error: { code, message: code, request_id: 'req_x' } },
  headers,
});
