/**
 * The logger (Powertools Logger, functions/lib/logger.ts): JSON lines, levels from LOG_LEVEL and
 * from Lambda's advanced logging controls, keys and context, errors with their stack mapped to
 * the sources (a real bundle's: test/tools/source-stack.test.ts), DEBUG lines held until an
 * error; and invocations that share the process (the local host,
 * local/current-function.ts) never see each other's keys, context or buffer.
 */
import type { Context } from 'aws-lambda';
import { createLogger } from '../../functions/lib/logger.js';
import { lambdaFunction } from '../../functions/middleware/invocation.js';
import { runAsFunction } from '../../local/current-function.js';

type Line = Record<string, unknown>;

/** Runs `fn` with stdout and stderr captured, one parsed object per line. */
async function capture(fn: () => unknown): Promise<{ out: Line[]; err: Line[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  try {
    await fn();
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const parse = (lines: string[]) =>
    lines.map((l) => {
      expect(l.endsWith('\n') && !l.slice(0, -1).includes('\n')).toBe(true);
      return JSON.parse(l) as Line;
    });
  return { out: parse(out), err: parse(err) };
}

const context = {
  functionName: 'get-key',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:get-key',
  memoryLimitInMB: '512',
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
} as Context;

/** Runs `fn` with these environment variables set, and puts them back after. */
function withEnv<T>(vars: Record<string, string>, fn: () => T): T {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('logger', () => {
  it('writes one JSON object per line: INFO to stdout, WARN and ERROR to stderr, below the level nothing', async () => {
    const log = createLogger({ LOG_LEVEL: 'info', POWERTOOLS_SERVICE_NAME: 'svc' });
    const { out, err } = await capture(() => {
      log.debug('hidden');
      log.info('shown', { n: 1n, nested: { a: 1 } });
      log.warn('careful');
      log.error('broken');
    });
    expect(out).toEqual([
      {
        level: 'INFO',
        message: 'shown',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        service: 'svc',
        n: '1',
        nested: { a: 1 },
      },
    ]);
    expect(err.map((l) => [l.level, l.message])).toEqual([
      ['WARN', 'careful'],
      ['ERROR', 'broken'],
    ]);
    expect((await capture(() => createLogger({ LOG_LEVEL: 'silent' }).error('never'))).err).toEqual([]);
    expect((await capture(() => createLogger({ LOG_LEVEL: 'warn' }).info('never'))).out).toEqual([]);
  });

  it("takes Lambda's advanced logging controls (AWS_LAMBDA_LOG_LEVEL) over LOG_LEVEL", async () => {
    let log = createLogger({});
    const { out, err } = await capture(() => {
      log = withEnv({ AWS_LAMBDA_LOG_LEVEL: 'WARN' }, () => createLogger({ LOG_LEVEL: 'DEBUG' }));
      log.info('filtered by the function’s log level');
      log.warn('kept');
    });
    expect(out).toEqual([]);
    // Powertools says once, as the logger is made, that the levels disagree; then the line itself.
    expect(err[0]?.message).toContain('does not match AWS Lambda Advanced Logging Controls');
    expect(err.at(-1)?.message).toBe('kept');
    expect(log.getLevelName()).toBe('WARN');
  });

  it('adds the Lambda context (cold start only on the first invocation) and the appended keys until they are reset', async () => {
    const log = createLogger({});
    const { out } = await capture(() => {
      log.addContext(context);
      log.appendKeys({ request_id: 'r1', key_id: 'k1' });
      log.info('first');
      log.resetKeys();
      log.addContext(context);
      log.info('second');
    });
    expect(out[0]).toMatchObject({
      cold_start: true,
      function_name: 'get-key',
      function_arn: context.invokedFunctionArn,
      function_memory_size: '512',
      function_request_id: context.awsRequestId,
      request_id: 'r1',
      key_id: 'k1',
    });
    expect(out[1]).toMatchObject({ cold_start: false, function_name: 'get-key' });
    expect(out[1]).not.toHaveProperty('request_id');
  });

  it('spells out an error: name, location, message, stack, cause and its own fields', async () => {
    const cause = new Error('underneath');
    const error = Object.assign(new TypeError('on top', { cause }), { $metadata: { httpStatusCode: 500 } });
    const [line] = (await capture(() => createLogger({}).error('failed', { error }))).err;
    expect(line!.error).toEqual({
      name: 'TypeError',
      location: expect.stringMatching(/logger\.test\.ts:\d+$/),
      message: 'on top',
      stack: expect.stringContaining('TypeError: on top'),
      cause: { name: 'Error', location: expect.any(String), message: 'underneath', stack: expect.any(String) },
      $metadata: { httpStatusCode: 500 },
    });
  });

  it("holds an invocation's DEBUG lines and writes them before its first error, or drops them when it ends", async () => {
    const log = createLogger({ LOG_LEVEL: 'DEBUG' });
    const trace = 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1';
    const { out, err } = await capture(() =>
      withEnv({ _X_AMZN_TRACE_ID: trace }, () => {
        log.debug('held, then written');
        log.info('written at once');
        log.error('failed');
        log.debug('held, then dropped');
        log.clearBuffer();
        log.error('failed again');
      }),
    );
    expect(out.map((l) => l.message)).toEqual(['written at once', 'held, then written']);
    expect(err.map((l) => l.message)).toEqual(['failed', 'failed again']);
    expect(out[1]).toMatchObject({ level: 'DEBUG', xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793' });
  });
});

describe('invocations', () => {
  it('keep their keys, context and held DEBUG lines apart when they interleave in one process', async () => {
    const log = createLogger({ LOG_LEVEL: 'INFO' });
    const one = (id: string, fn: string, fails: boolean) =>
      runAsFunction(
        fn,
        async () => {
          log.addContext({ ...context, functionName: fn, awsRequestId: `aws-${id}` });
          log.appendKeys({ request_id: id });
          log.debug('detail', { expect_id: id, expect_fn: fn });
          await new Promise((r) => setImmediate(r));
          log.info('line', { expect_id: id, expect_fn: fn });
          await new Promise((r) => setImmediate(r));
          if (fails) log.error('failed', { expect_id: id, expect_fn: fn });
          log.clearBuffer();
        },
        `aws-${id}`,
      );
    const { out, err } = await capture(async () => {
      await Promise.all([one('a', 'get-key', false), one('b', 'wait-operation', true), one('c', 'list-events', false)]);
      // Outside any invocation the process holds the keys, as Lambda's one-at-a-time process does.
      log.appendKeys({ request_id: 'outside' });
      log.info('line', { expect_id: 'outside' });
    });
    const lines = [...out, ...err];
    expect(lines).toHaveLength(6);
    for (const l of lines) expect(l.request_id).toBe(l.expect_id);
    for (const l of lines.filter((x) => x.expect_fn)) {
      expect([l.function_name, l.function_request_id]).toEqual([l.expect_fn, `aws-${l.expect_id}`]);
      expect(l.xray_trace_id).toMatch(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    }
    // Only the failing invocation's held line was written, and each invocation had its own trace.
    expect(out.filter((l) => l.level === 'DEBUG').map((l) => l.expect_id)).toEqual(['b']);
    expect(new Set(lines.filter((x) => x.expect_fn).map((l) => l.xray_trace_id)).size).toBe(3);
    expect(out.at(-1)).not.toHaveProperty('function_name');
  });

  it("drop an invocation's keys as it ends, so the next one in a warm process starts without them", async () => {
    const { logger } = await import('../../functions/lib/logger.js');
    const handler = lambdaFunction(
      async (event: { id: string; key?: string }) => {
        if (event.key) logger.appendKeys({ key_id: event.key });
        logger.info('step');
      },
      (event) => event.id,
    );
    const { out } = await capture(async () => {
      await handler({ id: 'op_1', key: 'key_1' }, context);
      await handler({ id: 'op_2' }, { ...context, awsRequestId: 'second' });
    });
    expect(out.map((l) => [l.correlation_id, l.key_id, l.function_request_id])).toEqual([
      ['op_1', 'key_1', context.awsRequestId],
      ['op_2', undefined, 'second'],
    ]);
  });
});
