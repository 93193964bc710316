/** middleware/api-request.ts: telling the intent's result from the wire response it becomes. */
import { intentResult, wireResponse } from '../../../functions/middleware/api-request.js';

const wire = { statusCode: 200, headers: {}, body: '' };
const json = { status: 201, data: { statusCode: 500 } };
const raw = { raw: { body: '<html></html>', contentType: 'text/html' } };

it('takes a response with a statusCode as the wire response, and nothing else', () => {
  expect(wireResponse(wire)).toBe(wire);
  for (const other of [json, raw, null, undefined]) expect(wireResponse(other)).toBeUndefined();
});

it('takes a JSON or raw result (even one whose data has a statusCode) as the intent result, and nothing else', () => {
  expect(intentResult(json)).toBe(json);
  expect(intentResult(raw)).toBe(raw);
  for (const other of [wire, null, undefined]) expect(intentResult(other)).toBeUndefined();
});
