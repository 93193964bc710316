/** middleware/body-guard.ts alone: decision 8's checks of a raw body, in their order, before the JSON parser reads it. */
import middy from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { MAX_BODY_BYTES } from '../../../contract/errors.js';
import { bodyGuard } from '../../../functions/middleware/body-guard.js';
import { apiContext, apiEvent } from '../../helpers/middleware-request.js';

const JSON_TYPE = { 'content-type': 'application/json' };
/** The event as the guard left it for the parser. */
const guarded = (takesNoBody: boolean, event: Partial<APIGatewayProxyEvent>) =>
  middy(async (e: APIGatewayProxyEvent) => e).use(bodyGuard(takesNoBody))(apiEvent({ httpMethod: 'POST', ...event }), apiContext({}));

it('passes a JSON body unchanged, with any parameters of its media type', async () => {
  const body = '{"name":"ünïcode"}';
  for (const type of ['application/json', 'Application/JSON; charset=utf-8'])
    expect(await guarded(false, { body, headers: { 'content-type': type } })).toMatchObject({ body, isBase64Encoded: false });
});

it('refuses more than the byte limit with 413, counting raw bytes (base64 decoded, multi-byte characters in full)', async () => {
  const tooBig = `"${'é'.repeat(MAX_BODY_BYTES / 2)}"`;
  expect(tooBig.length).toBeLessThan(MAX_BODY_BYTES);
  await expect(guarded(false, { body: tooBig, headers: JSON_TYPE })).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE', status: 413 });
  const encoded = Buffer.alloc(MAX_BODY_BYTES + 1, 'a').toString('base64');
  await expect(guarded(false, { body: encoded, isBase64Encoded: true, headers: JSON_TYPE })).rejects.toMatchObject({ status: 413 });
  const atLimit = Buffer.alloc(MAX_BODY_BYTES, ' ').toString('base64');
  expect(await guarded(false, { body: atLimit, isBase64Encoded: true, headers: JSON_TYPE })).toMatchObject({ body: atLimit });
});

it('checks the size before the media type, and the media type before the encoding', async () => {
  const big = 'x'.repeat(MAX_BODY_BYTES + 1);
  await expect(guarded(false, { body: big, headers: { 'content-type': 'text/plain' } })).rejects.toMatchObject({ status: 413 });
  const notUtf8 = Buffer.from([0x7b, 0xff, 0x7d]).toString('base64');
  await expect(guarded(false, { body: notUtf8, isBase64Encoded: true, headers: { 'content-type': 'text/plain' } })).rejects.toMatchObject({
    status: 415,
  });
});

it('refuses another media type, or none, with 415', async () => {
  for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/jsonx' }, {}])
    await expect(guarded(false, { body: '{}', headers })).rejects.toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
});

it('refuses bytes that are not UTF-8 with 400 INVALID_REQUEST', async () => {
  const body = Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]).toString('base64');
  await expect(guarded(false, { body, isBase64Encoded: true, headers: JSON_TYPE })).rejects.toMatchObject({
    code: 'INVALID_REQUEST',
    message: 'The request body is not valid UTF-8.',
  });
});

it('on a route that takes no body, reads none (or blanks, with no media type or JSON) as {}; anything else is checked as usual', async () => {
  for (const event of [
    { body: null, headers: {} },
    { body: '  \n', headers: JSON_TYPE },
    { body: '', isBase64Encoded: true, headers: {} },
  ])
    expect(await guarded(true, event)).toMatchObject({ body: '{}', isBase64Encoded: false });
  expect(await guarded(true, { body: '{"a":1}', headers: JSON_TYPE })).toMatchObject({ body: '{"a":1}' });
  await expect(guarded(true, { body: '', headers: { 'content-type': 'text/plain' } })).rejects.toMatchObject({ status: 415 });
  // A route that takes a body gets no such default: an empty body is left for the parser to refuse.
  expect(await guarded(false, { body: '', headers: JSON_TYPE })).toMatchObject({ body: '' });
});
