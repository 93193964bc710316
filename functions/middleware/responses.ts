/**
 * The wire form of every answer (decision 1): the JSON envelope with its Content-Type,
 * and the error envelope built from the catalogue. The HTTP stack and the local
 * gateway's own answers both use it.
 */
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError, internalError } from '../../contract/errors.js';
import { deploymentPath, operationPath } from '../../contract/paths.js';
import type { UpdateAnswer } from '../app/deployment-updates.js';
import type { JsonResult } from './api-request.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Every answer forbids MIME sniffing, and no JSON answer may be kept by a cache: they
 * hold per-organization data behind a key, even a 404 (decision 39).
 */
export function protectiveHeaders(contentType: string | undefined): Record<string, string> {
  const json = contentType?.toLowerCase().startsWith('application/json') ?? false;
  return { 'X-Content-Type-Options': 'nosniff', ...(json ? { 'Cache-Control': 'no-store' } : {}) };
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a safe token, else a fresh id (decision 2). */
export function requestIdFrom(given: string | undefined): string {
  return given && SAFE_REQUEST_ID.test(given) ? given : `req_${randomUUID().replaceAll('-', '')}`;
}

export function jsonResponse(result: JsonResult): APIGatewayProxyResult {
  return {
    statusCode: result.status ?? 200,
    headers: { ...result.headers, 'Content-Type': JSON_CONTENT_TYPE },
    body: JSON.stringify({ data: result.data }),
  };
}

/** The error envelope. Anything that is not an ApiError is a fault: a generic 500, nothing of it shown. */
export function errorEnvelope(error: unknown, requestId: string): APIGatewayProxyResult {
  const e = error instanceof ApiError ? error : internalError();
  const body = {
    error: {
      code: e.code,
      message: e.message,
      request_id: requestId,
      ...(e.options.details ? { details: e.options.details } : {}),
      ...(e.options.operationId ? { operation_id: e.options.operationId } : {}),
    },
  };
  return {
    statusCode: e.status,
    headers: {
      ...e.options.headers,
      'Content-Type': JSON_CONTENT_TYPE,
      ...protectiveHeaders(JSON_CONTENT_TYPE),
      'X-Request-Id': requestId,
    },
    body: JSON.stringify(body),
  };
}

/** The 202 of every asynchronous endpoint (decision 15). */
export function accepted({ deploymentId, operationId }: { deploymentId: string; operationId: string }): JsonResult {
  return {
    status: 202,
    data: {
      deployment_id: deploymentId,
      operation_id: operationId,
      links: { deployment: deploymentPath(deploymentId), operation: operationPath(operationId) },
    },
    headers: { Location: operationPath(operationId), 'Retry-After': '2' },
  };
}

/** A PATCH or rollback answers 202 (an update started), or 200 (nothing to change, or a dry run), each with ETag (decision 42). */
export function updateAnswer(answer: UpdateAnswer): JsonResult {
  const etag = { ETag: answer.etag };
  if ('started' in answer) {
    const result = accepted(answer.started);
    return { ...result, headers: { ...result.headers, ...etag } };
  }
  return { status: 200, data: 'unchanged' in answer ? answer.unchanged : answer.dryRun, headers: etag };
}
