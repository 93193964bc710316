/**
 * The dashboard API, typed by the same route and error types as the server: the user's
 * token on every call, the `{data}` / `{error}` envelope unwrapped, and one retry after a
 * refresh when the token turned out to be expired.
 */
import type { ErrorCode } from '../../functions/core/errors.js';
import { currentToken, refresh } from './auth.js';
import type { DashboardConfig } from './config.js';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'UNEXPECTED_RESPONSE',
    message: string,
  ) {
    super(message);
  }
}

let base = '';
export function configureApi(c: DashboardConfig): void {
  base = c.apiBase;
}

async function send(method: string, path: string, token: string, body?: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

export async function api<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let res = await send(method, path, await currentToken(), body);
  if (res.status === 401) res = await send(method, path, await refresh(), body);
  const parsed = (await res.json().catch(() => null)) as { data?: T; error?: { code: ErrorCode; message: string } } | null;
  if (res.ok && parsed && 'data' in parsed) return parsed.data as T;
  throw new ApiFailure(
    res.status,
    parsed?.error?.code ?? 'UNEXPECTED_RESPONSE',
    parsed?.error?.message ?? `The server answered ${res.status}.`,
  );
}
