/**
 * The capture behind the run's secrets scan (test/helpers/log-capture.ts, capture-logs.ts,
 * log-scan.ts): what the handlers and the workflow steps log in this test's process lands
 * in this file's log file, one JSON line each, and none of it holds the credentials the
 * requests carried, while the same lines with one of them planted are caught.
 */
import { readFileSync, statSync } from 'node:fs';
import { revokeKey } from '../../functions/adapters/dynamo/api-key-store.js';
import { hashKey, KEY_PREFIX } from '../../functions/core/api-keys.js';
import { stepFunctions } from '../helpers/after-env.js';
import { call, createKey } from '../helpers/fixtures.js';
import { logPath, testLogName } from '../helpers/log-capture.js';
import { scanLine } from '../helpers/log-scan.js';

const file = logPath(testLogName(expect.getState().testPath!));

/** The lines this file's process logs while `work` runs. */
async function linesOf(work: () => Promise<void>): Promise<string[]> {
  const from = statSync(file).size;
  await work();
  return readFileSync(file).subarray(from).toString('utf8').split('\n').filter(Boolean);
}

it("logs each request's access line with its key id, and no credential the requests carried", async () => {
  const { key, record } = await createKey();
  const bearer = 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJlLW9mLWEtdG9rZW4';
  const mistyped = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
  let secret = '';
  const lines = await linesOf(async () => {
    expect((await call('GET', '/key', { key, headers: { Authorization: bearer } })).status).toBe(200);
    const created = await call('POST', '/webhooks', { key, body: { url: 'http://127.0.0.1:9/hook' } });
    expect(created.status).toBe(201);
    secret = created.body.data.secret;
    expect((await call('DELETE', `/webhooks/${created.body.data.id}`, { key })).status).toBe(200);
    expect((await call('GET', '/key', { key: mistyped })).status).toBe(401);
    await revokeKey(record, new Date());
    expect((await call('GET', '/key', { key })).status).toBe(401);
  });
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(records.filter((r) => r.message === 'request').map((r) => [r.level, r.route, r.status, r.key_id ?? null])).toEqual([
    ['INFO', 'GET /api/v1/key', 200, record.id],
    ['INFO', 'POST /api/v1/webhooks', 201, record.id],
    ['INFO', 'DELETE /api/v1/webhooks/{webhook_id}', 200, record.id],
    ['INFO', 'GET /api/v1/key', 401, null],
    ['INFO', 'GET /api/v1/key', 401, record.id],
  ]);
  expect(lines.flatMap(scanLine)).toEqual([]);
  // The scan would have seen any of them in these very lines.
  for (const planted of [key, key.slice(KEY_PREFIX.length), mistyped, hashKey(key), secret, bearer])
    expect(scanLine(lines[0]!.replace(record.id, planted))).not.toEqual([]);
});

it('logs each workflow step a deployment runs', async () => {
  const { key } = await createKey();
  const lines = await linesOf(async () => {
    expect((await call('POST', '/deployments', { key, body: { app_type: 'superset' } })).status).toBe(202);
    await stepFunctions.settled();
  });
  const steps = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.message === 'workflow step');
  expect(steps.length).toBeGreaterThanOrEqual(3);
  for (const s of steps)
    expect(s).toEqual(expect.objectContaining({ level: 'INFO', step: expect.any(String), duration_ms: expect.any(Number) }));
  expect(lines.flatMap(scanLine)).toEqual([]);
});

it("keeps each concurrent invocation's log keys its own: every line carries its own request id, route, function and organization", async () => {
  const keys = await Promise.all([createKey(), createKey(), createKey()]);
  const sent = keys.flatMap(({ key, record }, i) =>
    Array.from({ length: 3 }, (_, n) => ({
      id: `req-concurrent-${i}-${n}`,
      key,
      orgId: record.org_id,
      route: n % 2 ? 'GET /api/v1/key' : 'GET /api/v1/environments',
    })),
  );
  const lines = await linesOf(async () => {
    const answers = await Promise.all(
      sent.map((s) => call('GET', s.route.slice('GET /api/v1'.length), { key: s.key, headers: { 'X-Request-Id': s.id } })),
    );
    expect(answers.map((a) => a.status)).toEqual(sent.map(() => 200));
  });
  const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.message === 'request');
  expect(access).toHaveLength(sent.length);
  for (const line of access) {
    const s = sent.find((x) => x.id === line.request_id);
    expect(s).toBeDefined();
    expect([line.route, line.org_id, line.function_name]).toEqual([
      s!.route,
      s!.orgId,
      s!.route.endsWith('/key') ? 'get-key' : 'list-environments',
    ]);
  }
  expect(new Set(access.map((l) => l.request_id)).size).toBe(sent.length);
});
