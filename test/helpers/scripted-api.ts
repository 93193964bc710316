/**
 * Test doubles for client-side code: a virtual clock, and an HTTP server that answers
 * with a script (errors, dropped connections, operations), so polling can be tested
 * without real waiting.
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

/** Virtual time: sleeping moves the clock and returns at once. */
export function virtualClock(): Clock & { slept: number[] } {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms) => {
      slept.push(ms);
      t += ms;
    },
  };
}

export type Step = { status: number; body?: unknown; headers?: Record<string, string> } | 'drop';

/** A server that answers each request with the next scripted step, noting the virtual time it came at. */
export function scriptedServer(clock: Clock, steps: Step[], repeatLast = false) {
  const seen: { at: number; path: string; key: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    seen.push({ at: clock.now(), path: req.url ?? '', key: req.headers['x-api-key'] as string | undefined });
    const step = steps.length > 1 || !repeatLast ? steps.shift() : steps[0];
    if (!step) {
      res.writeHead(500).end();
      return;
    }
    if (step === 'drop') {
      req.socket.destroy();
      return;
    }
    res.writeHead(step.status, {
      'Content-Type': 'application/json; charset=utf-8',
      'X-Request-Id': `req_${seen.length}`,
      ...step.headers,
    });
    res.end(JSON.stringify(step.body ?? {}));
  });
  return { server, seen };
}

export const OP_ID = `op_${randomUUID()}`;
export const DEP_ID = randomUUID();
export const operation = (status: Operation['status'], phase: string): Operation => ({
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
export const error = (status: number, code: string, headers?: Record<string, string>): Step => ({
  status,
  body: { error: { code, message: code, request_id: 'req_x' } },
  headers,
});
