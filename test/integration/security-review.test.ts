/**
 * The faults a security review found in the request stack, each reproduced here as a
 * client would meet it, through the local gateway and the real handlers.
 */
import { listUsage } from '../../functions/adapters/dynamo/usage-store.js';
import { createDeployment, operation } from '../helpers/api.js';
import { platformOf } from '../helpers/call-platform.js';
import { call, createKey } from '../helpers/fixtures.js';
import { eventually } from '../helpers/wait.js';
import { engineWith, recordsFor, run, testPlatform, workflowsOn } from '../helpers/workflow-harness.js';

// Many requests of one key in a moment: lift the burst limit this file is not about.
process.env.RATE_LIMIT_PER_MINUTE = '1000';

/** Every phase of this file's workflows waits until the test lets it go. */
const held: (() => void)[] = [];
workflowsOn(
  platformOf(() => () => new Promise<void>((resolve) => held.push(resolve))),
  {
    retryIntervalMs: 5,
    release: () => {
      for (const release of held) release();
    },
  },
);

describe('request bodies', () => {
  it('measures the raw bytes: 30 KB of invalid UTF-8 is 400 INVALID_REQUEST, not 413', async () => {
    const { key } = await createKey();
    // 0xC3 0x28 is an invalid two-byte sequence; decoded with replacements it would triple in size.
    const bytes = Buffer.concat([Buffer.from('{"app_type":"'), Buffer.alloc(30_000, 0xff), Buffer.from('"}')]);
    const res = await call('POST', '/deployments', { key, rawBody: bytes, headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'The request body is not valid UTF-8.' });
    // The same size in valid UTF-8 is within the limit and is read (and refused for its content).
    const valid = await call('POST', '/deployments', {
      key,
      rawBody: `{"app_type":"${'x'.repeat(30_000)}"}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(valid.status).toBe(400);
    expect(valid.body.error.details).toEqual([{ field: 'app_type', issue: 'must be one of: airflow, superset' }]);
    // Over 65,536 raw bytes is still 413.
    const large = await call('POST', '/deployments', {
      key,
      rawBody: Buffer.alloc(65_537, 0x20),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(large.status).toBe(413);
  });

  it.each([
    [{ app_type: 'airflow', name: 5 }, 'name', 'must be a string, not a number'],
    [{ app_type: 'airflow', environment_id: {} }, 'environment_id', 'must be a string, not an object'],
    [{ app_type: ['airflow'] }, 'app_type', 'must be one of: airflow, superset'],
    [{ app_type: 'airflow', name: null }, 'name', 'must be a string, not null'],
    [{}, 'app_type', 'is required'],
  ])('says what is wrong with a value of the wrong type: %j', async (body, field, issue) => {
    const { key } = await createKey();
    const res = await call('POST', '/deployments', { key, body });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field, issue }]);
  });

  it('reads a __proto__ key as an unknown field, never as a prototype', async () => {
    const { key } = await createKey();
    const res = await call('POST', '/deployments', {
      key,
      rawBody: '{"app_type":"airflow","__proto__":{"admin":true}}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: '__proto__', issue: 'unknown field' }]);
  });
});

describe('failed operations', () => {
  it('show a platform error as written, and nothing of an unexpected one', async () => {
    const leak =
      'AccessDeniedException: User: arn:aws:sts::123456789012:assumed-role/prod-run-phase is not authorized on table/deployments-prod';
    const { op, orgId } = await recordsFor('deployment.create');
    const { platform } = testPlatform(() => new Error(leak));
    expect((await run(engineWith(platform), op)).status).toBe('FAILED');
    const { getOperation } = await import('../../functions/adapters/dynamo/operation-reads.js');
    const failed = await getOperation(orgId, op.id, true);
    // An internal error is not one a retry would cure (decision 135).
    expect(failed?.error).toEqual({
      code: 'PROVISIONING_DB_FAILED',
      message: 'The operation failed because of an internal error.',
      phase: 'provisioning_db',
      retryable: false,
    });
    expect(JSON.stringify(failed)).not.toMatch(/arn:|123456789012|deployments-prod/);
  });
});

describe('Idempotency-Key on cancel', () => {
  it('15 parallel cancels with one key: the work is done once, and the other 14 repeat its answer', async () => {
    const { key } = await createKey();
    const created = await createDeployment(key);
    const opId = created.body.data.operation_id;
    await eventually(async () => (await operation(key, opId)).status === 'running', 'the create to run');
    const answers = await Promise.all(
      Array.from({ length: 15 }, () => call('POST', `/operations/${opId}/cancel`, { key, headers: { 'Idempotency-Key': 'cancel-once' } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(15).fill(200));
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(14);
    for (const a of answers) expect(a.body.data).toEqual(answers[0]!.body.data);
    expect(answers[0]!.body.data.status).toBe('canceled');
  });
});

describe('the usage log', () => {
  it('keeps one entry per request when parallel requests share an X-Request-Id', async () => {
    const { key, record } = await createKey();
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => call('GET', '/key', { key, headers: { 'X-Request-Id': 'same-id' } })),
    );
    expect(answers.every((a) => a.status === 200 && a.headers['x-request-id'] === 'same-id')).toBe(true);
    const entries = await listUsage(record.id, 200);
    expect(entries).toHaveLength(100);
    expect(entries.every((e) => e.request_id === 'same-id')).toBe(true);
  });
});
