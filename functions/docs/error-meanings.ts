/**
 * What each error code means, one sentence for the OpenAPI document and the guide, and the
 * parameters of its documented example message. Apart from the catalogue
 * (contract/errors.ts), which the functions bundle, because only the document reads them;
 * the type makes a code without its meaning a compile error.
 */
import { ERRORS, type ErrorCode, type ErrorParams, MAX_BODY_BYTES } from '../../contract/errors.js';

const EXAMPLE_DEPLOYMENT = '3f2b8c1e-6d4a-4e7b-9a51-0c8d2e7f4a10';
const EXAMPLE_OPERATION = 'op_8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

interface ErrorMeaning<P> {
  readonly meaning: string;
  /** The parameters of the documented example message. */
  readonly example: P;
}

const ERROR_MEANINGS: { readonly [C in ErrorCode]: ErrorMeaning<ErrorParams<C>> } = {
  INVALID_REQUEST: {
    meaning: 'The request is invalid: a parameter, header or body field; `details` lists each problem.',
    example: { problem: 'The request body is invalid.' },
  },
  MISSING_API_KEY: {
    meaning: 'No X-API-Key header was sent.',
    example: { bearer: false },
  },
  INVALID_API_KEY: {
    meaning: 'The API key is not recognised.',
    example: undefined,
  },
  API_KEY_REVOKED: {
    meaning: 'The API key has been revoked.',
    example: undefined,
  },
  API_KEY_EXPIRED: {
    meaning: 'The API key has expired.',
    example: { expiredAt: '2026-11-22T06:40:00.000Z' },
  },
  INSUFFICIENT_SCOPE: {
    meaning: 'The API key lacks the scope this endpoint needs; the message names it.',
    example: { scope: 'deployments:write' },
  },
  MISSING_TOKEN: {
    meaning: "The dashboard API was called without the signed-in user's token (Authorization: Bearer).",
    example: { apiKey: false },
  },
  INVALID_TOKEN: {
    meaning: 'The bearer token is not one the user pool issued for the dashboard.',
    example: undefined,
  },
  TOKEN_EXPIRED: {
    meaning: 'The bearer token is past its lifetime; the dashboard refreshes it and retries.',
    example: undefined,
  },
  INSUFFICIENT_ROLE: {
    meaning: "The signed-in user's role may not do this; the message names the role needed.",
    example: { role: 'admin' },
  },
  API_KEY_NOT_FOUND: {
    meaning: 'The API key does not exist (or belongs to another organization).',
    example: { id: 'key_0a1b2c3d4e5f6a7b8c9d' },
  },
  API_KEY_NOT_ROTATABLE: {
    meaning:
      'The API key is revoked or expired, so it cannot be rotated, or it was rotated already: rotate its successor instead (decisions 47, 229).',
    example: { id: 'key_0a1b2c3d4e5f6a7b8c9d', why: 'revoked' },
  },
  NOT_FOUND: {
    meaning: 'There is nothing at this path.',
    example: { method: 'GET', path: '/api/v1/nothing-here' },
  },
  DEPLOYMENT_NOT_FOUND: {
    meaning: 'The deployment does not exist (or belongs to another organization).',
    example: { id: EXAMPLE_DEPLOYMENT },
  },
  OPERATION_NOT_FOUND: {
    meaning: 'The operation does not exist (or belongs to another organization).',
    example: { id: EXAMPLE_OPERATION },
  },
  WEBHOOK_NOT_FOUND: {
    meaning: 'The webhook does not exist (or belongs to another organization).',
    example: { id: 'wh_5d0f1c2b3a4e4f6a8b9c0d1e2f3a4b5c' },
  },
  REVISION_NOT_FOUND: {
    meaning: 'The deployment has no such revision.',
    example: { id: EXAMPLE_DEPLOYMENT, revision: '7' },
  },
  ENVIRONMENT_NOT_FOUND: {
    meaning: 'The environment does not exist.',
    example: { id: 'env_staging' },
  },
  METHOD_NOT_ALLOWED: {
    meaning: 'The path exists but not with this method; see the Allow header.',
    example: { method: 'PUT', allow: 'GET, DELETE' },
  },
  DEPLOYMENT_NAME_TAKEN: {
    meaning: 'Another deployment of the organization that is not destroyed has this name.',
    example: { name: 'etl' },
  },
  DEPLOYMENT_ALREADY_DESTROYED: {
    meaning: 'The deployment is already destroyed.',
    example: { id: EXAMPLE_DEPLOYMENT },
  },
  DEPLOYMENT_NOT_READY: {
    meaning: 'The deployment is not ready.',
    example: { id: EXAMPLE_DEPLOYMENT, status: 'provisioning' },
  },
  OPERATION_IN_PROGRESS: {
    meaning:
      'An operation on the deployment is queued or running (for a dag sync, an app user or a rollback: a configuration update); `operation_id` names it. Wait for it, then retry.',
    example: { id: EXAMPLE_DEPLOYMENT, operationId: EXAMPLE_OPERATION },
  },
  DEPLOYMENT_HIBERNATED: {
    meaning:
      'The deployment is hibernated (decision 50): DAG syncs, app users and configuration changes other than `config.hibernation` wait until it is woken.',
    example: { id: EXAMPLE_DEPLOYMENT },
  },
  OPERATION_NOT_CANCELABLE: {
    meaning: 'The operation is finished, or is a destroy, a hibernate or a wake, and cannot be canceled.',
    example: { id: EXAMPLE_OPERATION, type: 'deployment.create', status: 'succeeded', cancelableType: true },
  },
  WEBHOOK_LIMIT_REACHED: {
    meaning: 'The organization already has the most webhooks it may have; delete one first.',
    example: { limit: 10 },
  },
  KEY_LIMIT_REACHED: {
    meaning: 'The organization already holds the most API keys it may (revoked keys and rotated ones do not count); revoke one first.',
    example: { limit: 100 },
  },
  IDEMPOTENCY_KEY_REUSED: {
    meaning: 'This Idempotency-Key was used with a different request in the last 24 hours.',
    example: undefined,
  },
  IDEMPOTENCY_KEY_IN_USE: {
    meaning: 'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds to get its response.',
    example: undefined,
  },
  PRECONDITION_FAILED: {
    meaning: 'If-Match is not `"<revision>"` of the current revision, nor `*`: read the deployment again.',
    example: { ifMatch: '"2"', revision: 3 },
  },
  PAYLOAD_TOO_LARGE: {
    // Not toLocaleString: formatting a number loads ICU's locale data, some 20 ms of every cold start.
    meaning: `The request body is over ${MAX_BODY_BYTES / 1024} KiB (${MAX_BODY_BYTES} bytes).`,
    example: undefined,
  },
  UNSUPPORTED_MEDIA_TYPE: {
    meaning: 'The request body is not sent as Content-Type: application/json (or, for PATCH, application/merge-patch+json).',
    example: { types: ['application/json'] },
  },
  MISDIRECTED_REQUEST: {
    meaning:
      'The local stack (npm start) answers only requests addressed to localhost, its loopback addresses or its HOST; another name in the Host header is refused (DNS rebinding).',
    example: undefined,
  },
  RATE_LIMIT_EXCEEDED: {
    meaning: 'A rate limit is exceeded; wait Retry-After seconds.',
    example: { limit: 'the burst limit of 100 requests per minute for this API key', retryAfter: 60 },
  },
  ORGANIZATION_BUSY: {
    meaning:
      "Too many changes to the organization's deployments at once: this one could not be recorded in time and nothing was changed; retry after Retry-After seconds.",
    example: { retryAfter: 1 },
  },
  INTERNAL_ERROR: {
    meaning:
      'An unexpected fault; quote the request id to support. With `operation_id`: the operation was recorded and then marked failed.',
    example: { operationFailed: false },
  },
};

export const errorMeaning = (c: ErrorCode): string => ERROR_MEANINGS[c].meaning;
/** The message the service sends for a code, with its documented example parameters. */
export const exampleMessage = (c: ErrorCode): string => (ERRORS[c].message as (p: unknown) => string)(ERROR_MEANINGS[c].example);
