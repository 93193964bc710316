/**
 * Decision 44: a request that uses a deprecated feature (today the `dep_<uuid>` form of
 * `resource_id` on GET /operations and GET /events) is answered as before, and every
 * answer to it, errors included, carries Deprecation, Sunset and Link; no other request
 * carries them. Its usage log entry says `deprecated: true`.
 */
import { randomUUID } from 'node:crypto';
import { listUsage } from '../../functions/adapters/dynamo/usage-store.js';
import { DEPRECATIONS } from '../../functions/core/deprecations.js';
import { call, createKey } from '../helpers/fixtures.js';

const NOTICE = {
  deprecation: '@1795478400',
  sunset: 'Wed, 24 Nov 2027 00:00:00 GMT',
  link: '</api/v1/docs#deprecations>; rel="deprecation"',
};
const noticeOf = (headers: Record<string, string>) => ({ deprecation: headers.deprecation, sunset: headers.sunset, link: headers.link });
const NONE = { deprecation: undefined, sunset: undefined, link: undefined };

describe('deprecation notices', () => {
  it('declares one feature today, dated as decision 44 says', () => {
    expect(DEPRECATIONS.map(({ id, since, sunset }) => ({ id, since, sunset }))).toEqual([
      { id: 'dep-prefixed-resource-id', since: '2026-11-24', sunset: '2027-11-24' },
    ]);
  });

  it('answers a dep_ resource_id as before, with the three headers, on both routes', async () => {
    const { key } = await createKey({ scopes: ['operations:read'] });
    const id = randomUUID();
    for (const path of ['/operations', '/events']) {
      const bare = await call('GET', `${path}?resource_id=${id}`, { key });
      const prefixed = await call('GET', `${path}?resource_id=dep_${id}`, { key });
      const shouting = await call('GET', `${path}?resource_id=DEP_${id.toUpperCase()}`, { key });
      expect({ path, status: prefixed.status, items: prefixed.body.data.items }).toEqual({
        path,
        status: 200,
        items: bare.body.data.items,
      });
      expect(noticeOf(prefixed.headers)).toEqual(NOTICE);
      expect(noticeOf(shouting.headers)).toEqual(NOTICE);
      expect(noticeOf(bare.headers)).toEqual(NONE);
    }
  });

  it('puts them on every answer to such a request: 400 for another parameter, 401, 403, a bad dep_ value is not a use', async () => {
    const { key } = await createKey({ scopes: ['operations:read'] });
    const { key: noScope } = await createKey({ scopes: ['org:read'] });
    const dep = `dep_${randomUUID()}`;
    const answers = {
      badPage: await call('GET', `/operations?resource_id=${dep}&page=0`, { key }),
      badType: await call('GET', `/events?type=nothing&resource_id=${dep}`, { key }),
      noKey: await call('GET', `/operations?resource_id=${dep}`),
      unknownKey: await call('GET', `/events?resource_id=${dep}`, { key: `${key.slice(0, -6)}AAAAAA` }),
      noScope: await call('GET', `/operations?resource_id=${dep}`, { key: noScope }),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, r.status]))).toEqual({
      badPage: 400,
      badType: 400,
      noKey: 401,
      unknownKey: 401,
      noScope: 403,
    });
    for (const [name, r] of Object.entries(answers)) expect({ name, ...noticeOf(r.headers) }).toEqual({ name, ...NOTICE });

    const notUses = [
      await call('GET', `/operations?resource_id=dep_not-a-uuid`, { key }),
      await call('GET', `/events?resource_id=op_${randomUUID()}`, { key }),
      await call('GET', `/deployments?resource_id=${dep}`, { key }),
      await call('GET', '/operations', { key }),
      await call('GET', `/operations/op_${randomUUID()}?resource_id=${dep}`, { key }),
    ];
    expect(notUses.map((r) => r.status)).toEqual([400, 200, 403, 200, 404]);
    for (const r of notUses) expect(noticeOf(r.headers)).toEqual(NONE);
  });

  it("marks the request's usage log entry deprecated: true, and no other", async () => {
    const { key, record } = await createKey({ scopes: ['operations:read'] });
    const id = randomUUID();
    const sent = [
      await call('GET', `/operations?resource_id=${id}`, { key }),
      await call('GET', `/operations?resource_id=dep_${id}`, { key }),
      await call('GET', `/events?resource_id=dep_${id}&per_page=0`, { key }),
    ];
    const entries = (await listUsage(record.id, 10)).reverse();
    expect(entries.map((e) => ({ request_id: e.request_id, status: e.status, deprecated: e.deprecated }))).toEqual(
      sent.map((r, i) => ({ request_id: r.headers['x-request-id'], status: r.status, deprecated: i === 0 ? undefined : true })),
    );
    expect(Object.keys(entries[0]!)).not.toContain('deprecated');
  });
});
