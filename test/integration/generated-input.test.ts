/**
 * Generated hostile input never breaks the service (docs/testing.md, "Reliability"). fast-check sends
 * FUZZ_REQUESTS (default 10,000) generated requests through the local gateway to the real
 * handler modules and DynamoDB Local, 25 at a time, and checks every answer against the
 * contract (test/helpers/answer-checks.ts): the documented envelope and a documented code,
 * never a 5xx, a stack trace or an internal message.
 *
 * The world is built so that every write is refused: the organization has used its
 * creation quota (CREATE_LIMIT_PER_HOUR=1) and its ten webhooks, its one deployment is
 * destroyed and its operations are over. So no request may change the table, and a
 * fingerprint of everything the two organizations own, taken before and after, must be
 * the same, apart from what a refused-but-recognised request legitimately writes: its
 * usage entry (USAGE#), the failed-authentication counters (AUTHFAIL#), and the admission
 * attributes of the key's item (rate_*, last_used_at). See test/helpers/table-fingerprint.ts.
 *
 * The run is seeded: FUZZ_SEED=<n> repeats it; a failure names the seed and the shrunk request.
 */
import { isIP } from 'node:net';
import * as fc from 'fast-check';
import { EVENT_TYPES } from '../../contract/vocabulary.js';
import { revokeKey } from '../../functions/adapters/dynamo/api-key-store.js';
import { generateKey, hashKey, KEY_PREFIX } from '../../functions/core/api-keys.js';
import { windowsAt } from '../../functions/core/rate-limits.js';
import { invokeGateway } from '../../local/gateway.js';
import { answerProblems, readAnswer } from '../helpers/answer-checks.js';
import { createDeployment, operationReaches } from '../helpers/api.js';
import { call, createKey, newOrgId, signingSecret } from '../helpers/fixtures.js';
import { type HostileRequest, hostileRequest, nasty, type World } from '../helpers/hostile-input.js';
import { fingerprintChanges, type Owned, tableFingerprint } from '../helpers/table-fingerprint.js';
import { createStreamlessTable } from '../helpers/test-dynamo.js';

// A table of its own, without a stream: these 10,000 requests' usage entries would otherwise
// flood the stream that other files' webhook pipelines read, and slow them past their deadlines.
process.env.TABLE_NAME = 'deployments-generated-input';
process.env.RATE_LIMIT_PER_MINUTE = '10000000';
process.env.RATE_LIMIT_PER_HOUR = '10000000';
process.env.CREATE_LIMIT_PER_HOUR = '1';
// As on every deployed stage: only https webhook URLs to public hosts.
process.env.WEBHOOK_ALLOW_INSECURE = 'false';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const PARALLEL = 25;
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** Runs a property with the run's seed, and says how to repeat a failure. */
async function check<T>(property: fc.IAsyncPropertyWithHooks<T>, numRuns: number): Promise<void> {
  try {
    // Without shrinking: each run is a batch of real requests, and the failed check names its request.
    await fc.assert(property, { seed: SEED, numRuns, endOnFailure: true, includeErrorInReport: true });
  } catch (e) {
    const report = (e as Error).message;
    const counterexample = report.indexOf('Counterexample:');
    const failure = report.indexOf('Got error:');
    throw new Error(
      `Repeat with FUZZ_SEED=${SEED}.\n${report.slice(0, counterexample)}${failure >= 0 ? report.slice(failure, failure + 3000) : ''}`,
    );
  }
}

/** The answer, or what the host threw instead of answering (itself a failure: a client would get no envelope). */
const send = (r: HostileRequest) =>
  invokeGateway(r).then(readAnswer, (e: unknown) => ({ status: 599, headers: {}, body: `the gateway threw: ${String(e)}` }));

const hourOf = (d = new Date()) => windowsAt(d).hourStart;

/** A deployment created and destroyed: uses the hour's creation quota and leaves nothing DELETE could destroy. */
async function createAndDestroy(key: string): Promise<{ deploymentId: string; operations: string[] }> {
  const created = await createDeployment(key, { app_type: 'airflow' });
  if (created.status !== 202) throw new Error(`create: ${JSON.stringify(created.body)}`);
  const { deployment_id: deploymentId, operation_id: createOp } = created.body.data;
  await operationReaches(key, createOp, ['succeeded']);
  const destroyed = await call('DELETE', `/deployments/${deploymentId}`, { key });
  await operationReaches(key, destroyed.body.data.operation_id, ['succeeded']);
  return { deploymentId, operations: [createOp, destroyed.body.data.operation_id] };
}

/** The organization's ten webhooks, its limit (made after its changes, so no event is ever delivered to them). */
async function fillWebhooks(key: string): Promise<string[]> {
  const hooks = await Promise.all(
    Array.from({ length: 10 }, (_, i) => call('POST', '/webhooks', { key, body: { url: `https://hooks.example.com/${i}` } })),
  );
  if (hooks.some((h) => h.status !== 201)) throw new Error('could not fill the webhook limit');
  return hooks.map((h) => h.body.data.id as string);
}

describe('generated hostile requests', () => {
  const orgA = newOrgId();
  const orgB = newOrgId();
  let world: World;
  let mainKey: string;
  let owned: Owned;
  let quotaHour: number;

  beforeAll(async () => {
    await createStreamlessTable(process.env.TABLE_NAME!);
    const main = await createKey({ orgId: orgA });
    mainKey = main.key;
    const revoked = await createKey({ orgId: orgA });
    await revokeKey(revoked.record, new Date());
    const expired = await createKey({ orgId: orgA, expiresAt: '2020-01-01T00:00:00.000Z' });
    const narrow = await createKey({ orgId: orgA, scopes: ['org:read'] });
    const unknown = generateKey({ orgId: orgA, name: 'never stored', now: new Date() }, signingSecret()).key;
    const mistyped = `${main.key.slice(0, -1)}${main.key.endsWith('a') ? 'b' : 'a'}`;

    const ours = await createAndDestroy(mainKey);
    quotaHour = hourOf();
    const hooks = await fillWebhooks(mainKey);

    // Another organization's live records: every id of it must be 404 to orgA's keys.
    const other = await createKey({ orgId: orgB });
    const theirs = await createDeployment(other.key, { app_type: 'superset' });
    await operationReaches(other.key, theirs.body.data.operation_id, ['succeeded']);
    const theirHook = await call('POST', '/webhooks', { key: other.key, body: { url: 'https://hooks.example.com/b' } });

    world = {
      keys: [mainKey, revoked.key, expired.key, narrow.key, unknown, mistyped, other.key.slice(0, KEY_PREFIX.length + 10)],
      ids: [
        ours.deploymentId,
        ...ours.operations,
        theirs.body.data.deployment_id,
        theirs.body.data.operation_id,
        theirHook.body.data.id,
        'env_default',
      ],
      // DELETE would really delete these: only GET names them.
      readOnlyIds: hooks,
    };
    const keyHashes = new Set([main, revoked, expired, narrow, other].map((k) => `KEY#${hashKey(k.key)}`));
    const deliveries = new Set([...hooks, theirHook.body.data.id].map((id) => `WHD#${id}`));
    owned = { partitions: [`ORG#${orgA}`, `ORG#${orgB}`, ...keyHashes, ...deliveries] };
  }, 120_000);

  it(`answers ${REQUESTS.toLocaleString('en-US')} of them as documented, never 5xx, and changes nothing`, async () => {
    let baseline = await tableFingerprint(owned);
    let sent = 0;
    const statuses = new Map<number, number>();
    await check(
      fc.asyncProperty(fc.array(hostileRequest(world), { minLength: PARALLEL, maxLength: PARALLEL }), async (batch) => {
        // The creation quota is per clock hour: when a new hour begins, use it up again before
        // this batch (a create of the test's own, outside the property) and fingerprint anew.
        if (hourOf() !== quotaHour) {
          // Without webhooks meanwhile, so its events queue no deliveries (the local queue is shared by the run).
          const listed = await call('GET', '/webhooks', { key: mainKey });
          for (const h of listed.body.data.items) await call('DELETE', `/webhooks/${h.id}`, { key: mainKey });
          await createAndDestroy(mainKey);
          await fillWebhooks(mainKey);
          quotaHour = hourOf();
          baseline = await tableFingerprint(owned);
        }
        const answers = await Promise.all(batch.map(send));
        sent += batch.length;
        answers.forEach((answer, i) => {
          const request = batch[i]!;
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          const problems = answerProblems(request, answer);
          // Every write of this world must be refused, whatever it looked like.
          if (['POST', 'DELETE'].includes(request.method) && answer.status < 400 && !request.url.includes('/openapi.json'))
            problems.push(`a write was accepted (${answer.status})`);
          if (problems.length)
            throw new Error(
              `${request.method} ${request.url} -> ${answer.status}\n  ${problems.join('\n  ')}\n  body: ${JSON.stringify(answer.body).slice(0, 800)}`,
            );
        });
      }),
      Math.ceil(REQUESTS / PARALLEL),
    );
    expect(sent).toBeGreaterThanOrEqual(REQUESTS);
    // The run reached past the early checks: validation, lookups and refusals all answered.
    expect([...statuses.keys()]).toEqual(expect.arrayContaining([200, 400, 401, 403, 404, 405, 413, 415]));
    expect(fingerprintChanges(baseline, await tableFingerprint(owned))).toEqual([]);
  }, 300_000);

  it('refuses every generated webhook URL a deployed stage must not call, and keeps only the ones it may', async () => {
    const { key } = await createKey();
    const url = fc.oneof(
      fc.webUrl({
        withQueryParameters: true,
        withFragments: true,
        authoritySettings: { withIPv4: true, withIPv6: true, withPort: true, withUserInfo: true },
      }),
      fc.constantFrom(
        'https://127.0.0.1/x',
        'https://[::1]/x',
        'https://localhost/x',
        'https://169.254.169.254/latest/meta-data',
        'https://10.0.0.1/',
        'https://[::ffff:127.0.0.1]/',
        'https://0.0.0.0/',
        'https://2130706433/',
        'https://0x7f.1/',
        'http://hooks.example.com/',
        'ftp://hooks.example.com/',
        'javascript:alert(1)',
        '//hooks.example.com/',
        'hooks.example.com',
        `https://hooks.example.com/${'a'.repeat(2030)}`,
      ),
      nasty,
    );
    const events = fc.option(fc.array(fc.oneof(fc.constantFrom(...EVENT_TYPES), nasty), { maxLength: 5 }), { nil: undefined });
    await check(
      fc.asyncProperty(url, events, async (u, ev) => {
        const res = await call('POST', '/webhooks', { key, body: { url: u, ...(ev === undefined ? {} : { events: ev }) } });
        expect([201, 400]).toContain(res.status);
        if (res.status === 400) return;
        // Accepted: an absolute https URL without credentials, to a host that is a name or a public address.
        const parsed = new URL(u);
        expect(parsed.protocol).toBe('https:');
        expect(parsed.username + parsed.password).toBe('');
        expect(u.length).toBeLessThanOrEqual(2048);
        // A name is judged where it resolves, at delivery (`0.0.ew` or `10.example.com` are names); an address here.
        const host = parsed.hostname;
        if (isIP(host) !== 0 || host.startsWith('['))
          expect(host).not.toMatch(/^(127\.|10\.|0\.|169\.254\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|\[(::1?|::ffff:|f[cd]|fe80))/i);
        else expect(host).not.toMatch(/^localhost\.?$/i);
        expect(ev === undefined || ev.every((e) => (EVENT_TYPES as readonly string[]).includes(e))).toBe(true);
        // Stored as parsed (decision 127), so what is shown is where deliveries go.
        expect(res.body.data).toMatchObject({ url: parsed.href, events: ev ? [...new Set(ev)] : [...EVENT_TYPES] });
        expect((await call('DELETE', `/webhooks/${res.body.data.id}`, { key })).status).toBe(200);
      }),
      300,
    );
  }, 120_000);

  it('answers generated event filters with exactly the events they select, or 400', async () => {
    const { key } = await createKey();
    const made = await createDeployment(key, { app_type: 'airflow' });
    await operationReaches(key, made.body.data.operation_id, ['succeeded']);
    const depId: string = made.body.data.deployment_id;
    const opId: string = made.body.data.operation_id;
    const all = (await call('GET', '/events?per_page=100', { key })).body.data.items as {
      type: string;
      data: { object: { id: string } };
    }[];
    const resourceId = fc.oneof(
      fc.constantFrom(depId, `dep_${depId}`, depId.toUpperCase(), opId, opId.toUpperCase(), `op_${depId}`),
      fc.uuid(),
      nasty,
    );
    await check(
      fc.asyncProperty(
        fc.option(fc.oneof(fc.constantFrom(...EVENT_TYPES), nasty), { nil: undefined }),
        fc.option(resourceId, { nil: undefined }),
        async (type, resource) => {
          const q = new URLSearchParams({ per_page: '100' });
          if (type !== undefined) q.set('type', type.replace(/[\ud800-\udfff]/g, ''));
          if (resource !== undefined) q.set('resource_id', resource.replace(/[\ud800-\udfff]/g, ''));
          const res = await call('GET', `/events?${q}`, { key });
          const t = q.get('type');
          const r = q.get('resource_id');
          const validType = t === null || (EVENT_TYPES as readonly string[]).includes(t);
          const validResource = r === null || /^((dep_)?|op_)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(r);
          expect(res.status).toBe(validType && validResource ? 200 : 400);
          if (res.status !== 200) return;
          // Decision 5: dep_<uuid> is read as <uuid>; ids compare in lower case.
          const id = r === null ? null : r.replace(/^dep_/i, '').toLowerCase();
          const expected = all.filter((e) => (t === null || e.type === t) && (id === null || e.data.object.id === id));
          expect(res.body.data.items).toEqual(expected);
        },
      ),
      300,
    );
  }, 120_000);
});
