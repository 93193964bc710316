/**
 * What every answer to any request must be, whatever was sent: the documented envelope
 * (checked against the OpenAPI document), a status the route documents and never a 5xx,
 * an error code the route lists (contract/routes.ts `errors`, plus the codes every keyed
 * route has), the request id in body and header alike, and nothing of the service's
 * insides: no stack frame, file name, SDK or parser message.
 */
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ERRORS, type ErrorCode } from '../../contract/errors.js';
import { matchRoute } from '../../contract/router.js';
import { exampleMessage } from '../../functions/docs/error-meanings.js';
import { errorCodesOf } from '../../functions/docs/openapi-errors.js';
import { targetUrl } from '../../local/gateway.js';
import { conformanceProblems } from './openapi-conformance.js';

/** Text that only a leaked fault would put in an answer. */
const INTERNALS =
  /\n\s*at |\bat \S+ \(|\.[cm]?[jt]s:\d+|node_modules|\b[A-Z]\w*(Error|Exception)\b|Unexpected (token|end)|JSON at position|ECONN|ETIMEDOUT|DynamoDB|ValidationException|undefined|\[object Object\]/;

export interface Sent {
  method: string;
  /** Path and query, e.g. /api/v1/deployments?page=2. */
  url: string;
  body?: Buffer;
}

/** Codes whose message names the id that was asked for, which may be anything a client sent. */
const ECHOES_ID = ['DEPLOYMENT_NOT_FOUND', 'OPERATION_NOT_FOUND', 'WEBHOOK_NOT_FOUND', 'ENVIRONMENT_NOT_FOUND'] as const;

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The answer with lower-case header names and its JSON body parsed (the text when it is not JSON). */
export function readAnswer(res: APIGatewayProxyResult): Answer {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers ?? {})) headers[k.toLowerCase()] = String(v);
  let body: unknown = res.body;
  if (headers['content-type']?.startsWith('application/json')) {
    try {
      body = JSON.parse(res.body);
    } catch {
      body = `(not JSON) ${res.body}`;
    }
  }
  return { status: res.statusCode, headers, body };
}

/** The problems with one answer; empty when it is what the contract promises. */
export function answerProblems(sent: Sent, answer: Answer): string[] {
  const problems: string[] = [];
  const path = targetUrl(sent.url).pathname;
  if (answer.status >= 500) problems.push(`status ${answer.status}: a fault, not a client error`);
  problems.push(...conformanceProblems({ method: sent.method, path, status: answer.status, headers: answer.headers, body: answer.body }));
  if (answer.status < 400) return problems;

  const error = (answer.body as { error?: { code?: string; message?: string; request_id?: string; details?: { issue?: string }[] } })
    ?.error;
  if (!error) return [...problems, 'an error answer without the error envelope'];
  if (error.request_id !== answer.headers['x-request-id']) problems.push('error.request_id differs from the X-Request-Id header');

  const match = matchRoute(sent.method, path);
  const allowed: readonly string[] =
    match.kind === 'route' ? errorCodesOf(match.route) : match.kind === 'not-found' ? ['NOT_FOUND'] : ['METHOD_NOT_ALLOWED'];
  if (!allowed.includes(String(error.code))) problems.push(`error code ${error.code} is not one ${sent.method} ${path} documents`);

  // The fallback's messages name the method and path as sent: compare them whole, since the path may hold anything.
  if (error.code === 'NOT_FOUND' && error.message !== `No endpoint at ${sent.method} ${path}.`)
    problems.push(`unexpected NOT_FOUND message: ${error.message}`);
  else if (match.kind === 'route' && (ECHOES_ID as readonly string[]).includes(String(error.code))) {
    const code = error.code as (typeof ECHOES_ID)[number];
    const expected = Object.values(match.params).map((id) => ERRORS[code].message({ id }));
    if (!expected.includes(String(error.message))) problems.push(`unexpected ${code} message: ${error.message}`);
  } else if (error.code !== 'NOT_FOUND' && error.code !== 'METHOD_NOT_ALLOWED') {
    // Field names in `details` echo what was sent; messages and issues are the service's own words
    // (a name the client sent, e.g. "undefined", may be quoted back).
    const sentText = `${sent.url} ${sent.body?.toString('utf8') ?? ''}`;
    for (const text of [error.message, ...(error.details ?? []).map((d) => d.issue)]) {
      const leak = typeof text === 'string' ? INTERNALS.exec(text) : null;
      if (leak && !sentText.includes(leak[0])) problems.push(`internal text in the answer: ${JSON.stringify(text)}`);
    }
  }
  if (error.code === 'INTERNAL_ERROR' && error.message !== exampleMessage('INTERNAL_ERROR' as ErrorCode))
    problems.push('a 500 message other than the generic one');
  return problems;
}
