/** middleware/responses.ts: the wire form of every answer, the stack's and the local gateway's alike. */
import { apiError, internalError } from '../../../contract/errors.js';
import {
  accepted,
  errorEnvelope,
  JSON_CONTENT_TYPE,
  jsonResponse,
  protectiveHeaders,
  requestIdFrom,
} from '../../../functions/middleware/responses.js';

describe('protectiveHeaders', () => {
  it('forbids sniffing of every answer, and caching of a JSON one (whatever the case of its media type)', () => {
    const noStore = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' };
    expect(protectiveHeaders(JSON_CONTENT_TYPE)).toEqual(noStore);
    expect(protectiveHeaders('Application/JSON')).toEqual(noStore);
    for (const other of ['text/html', 'text/css; charset=utf-8', undefined])
      expect(protectiveHeaders(other)).toEqual({ 'X-Content-Type-Options': 'nosniff' });
  });
});

describe('requestIdFrom', () => {
  it('keeps a safe token of 1-128 characters as the caller sent it', () => {
    for (const given of ['a', 'client-id.1', 'trace:abc_DEF-9', 'x'.repeat(128)]) expect(requestIdFrom(given)).toBe(given);
  });

  it('makes a fresh id for none, an empty one, a too long one, or one with anything unsafe', () => {
    const fresh = [undefined, '', 'x'.repeat(129), 'with space', 'line\nbreak', '<script>', 'ü'].map(requestIdFrom);
    for (const id of fresh) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(new Set(fresh).size).toBe(fresh.length);
  });
});

describe('jsonResponse', () => {
  it('puts the data under "data", with the status (200 unless given), the headers and the JSON content type winning', () => {
    expect(jsonResponse({ status: 201, data: { id: 'x' }, headers: { Location: '/x', 'Content-Type': 'text/plain' } })).toEqual({
      statusCode: 201,
      headers: { Location: '/x', 'Content-Type': JSON_CONTENT_TYPE },
      body: '{"data":{"id":"x"}}',
    });
    expect(jsonResponse({ data: null })).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': JSON_CONTENT_TYPE },
      body: '{"data":null}',
    });
  });
});

describe('errorEnvelope', () => {
  it('answers an ApiError with its status, code, message, details, operation id and own headers, under the request id', () => {
    const error = apiError('IDEMPOTENCY_KEY_IN_USE', undefined, {
      headers: { 'Retry-After': '1' },
      details: [{ field: 'Idempotency-Key', issue: 'is in use' }],
      operationId: 'op_1',
    });
    const response = errorEnvelope(error, 'req_1');
    expect(response).toEqual({
      statusCode: 409,
      headers: {
        'Retry-After': '1',
        'Content-Type': JSON_CONTENT_TYPE,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-store',
        'X-Request-Id': 'req_1',
      },
      body: expect.any(String),
    });
    expect(JSON.parse(response.body)).toEqual({
      error: {
        code: 'IDEMPOTENCY_KEY_IN_USE',
        message: error.message,
        request_id: 'req_1',
        details: [{ field: 'Idempotency-Key', issue: 'is in use' }],
        operation_id: 'op_1',
      },
    });
  });

  it('leaves out details and operation id the error does not have', () => {
    expect(Object.keys(JSON.parse(errorEnvelope(apiError('DEPLOYMENT_NOT_FOUND', { id: 'dep_1' }), 'req_1').body).error)).toEqual([
      'code',
      'message',
      'request_id',
    ]);
  });

  it('answers anything else as the generic 500, showing nothing of it', () => {
    const response = errorEnvelope(new Error('password=hunter2'), 'req_2');
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('hunter2');
    expect(JSON.parse(response.body)).toEqual({ error: { code: 'INTERNAL_ERROR', message: internalError().message, request_id: 'req_2' } });
    expect(errorEnvelope('a string thrown', 'req_2')).toEqual(response);
  });
});

describe('accepted', () => {
  it('is the 202 of an asynchronous endpoint: ids, links to both resources, Location of the operation and Retry-After', () => {
    expect(accepted({ deploymentId: 'dep_1', operationId: 'op_1' })).toEqual({
      status: 202,
      data: {
        deployment_id: 'dep_1',
        operation_id: 'op_1',
        links: { deployment: '/api/v1/deployments/dep_1', operation: '/api/v1/operations/op_1' },
      },
      headers: { Location: '/api/v1/operations/op_1', 'Retry-After': '2' },
    });
  });
});
