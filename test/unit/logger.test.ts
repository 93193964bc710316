/** The logger: JSON lines in Powertools' shape, levels, keys and context, errors with their stack mapped to the sources. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { build } from 'esbuild';
import { Logger, runInvocation } from '../../functions/lib/logger.js';
import { sourceStack } from '../../functions/lib/source-stack.js';

/** Runs `fn` with stdout and stderr captured, one parsed object per line. */
function capture(fn: () => void): { out: Record<string, unknown>[]; err: Record<string, unknown>[] } {
  const out: string[] = [];
  const err: string[] = [];
  const o = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const e = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  try {
    fn();
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
  const parse = (lines: string[]) =>
    lines.map((l) => {
      expect(l.endsWith('\n') && !l.slice(0, -1).includes('\n')).toBe(true);
      return JSON.parse(l) as Record<string, unknown>;
    });
  return { out: parse(out), err: parse(err) };
}

const context = {
  functionName: 'get-key',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:get-key',
  memoryLimitInMB: '512',
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
} as Context;

describe('logger', () => {
  it('writes one JSON object per line: INFO to stdout, WARN and ERROR to stderr, below the level nothing', () => {
    const log = new Logger('svc', 'INFO');
    const { out, err } = capture(() => {
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
    expect(capture(() => new Logger('svc', 'SILENT').error('never')).err).toEqual([]);
  });

  it('adds the Lambda context (cold start only on the first invocation) and the appended keys until they are reset', () => {
    const log = new Logger('svc', 'INFO');
    const { out } = capture(() => {
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
      function_memory_size: 512,
      function_request_id: context.awsRequestId,
      request_id: 'r1',
      key_id: 'k1',
    });
    expect(out[1]).toMatchObject({ cold_start: false, function_name: 'get-key' });
    expect(out[1]).not.toHaveProperty('request_id');
  });

  it('spells out an error: name, location, message, stack, cause and its own fields', () => {
    const cause = new Error('underneath');
    const error = Object.assign(new TypeError('on top', { cause }), { $metadata: { httpStatusCode: 500 } });
    const [line] = capture(() => new Logger('svc', 'INFO').error('failed', { error })).err;
    expect(line!.error).toEqual({
      name: 'TypeError',
      location: expect.stringMatching(/:\d+:\d+$/),
      message: 'on top',
      stack: expect.stringContaining('TypeError: on top'),
      cause: { name: 'Error', location: expect.any(String), message: 'underneath', stack: expect.any(String) },
      $metadata: { httpStatusCode: 500 },
    });
  });
});

describe('sourceStack', () => {
  it("points a bundle's frames at the sources through its map, and leaves frames without a map alone", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'source-stack-'));
    try {
      fs.writeFileSync(path.join(dir, 'thrower.ts'), "export function fail(): Error {\n  return new Error('boom');\n}\n");
      const outfile = path.join(dir, 'bundle.mjs');
      await build({ entryPoints: [path.join(dir, 'thrower.ts')], outfile, bundle: true, minify: true, format: 'esm', sourcemap: true });
      // The frame V8 writes for the `new Error` of the minified bundle (line 1), as a URL and as a path.
      const column = fs.readFileSync(outfile, 'utf8').indexOf('new Error') + 1;
      const source = `${path.join(dir, 'thrower.ts')}:2:10`;
      expect(sourceStack(`Error: boom\n    at r (${pathToFileURL(outfile).href}:1:${column})`)).toBe(`Error: boom\n    at r (${source})`);
      expect(sourceStack(`    at ${outfile}:1:${column}`)).toBe(`    at ${source}`);
      const unmapped = '    at f (/nowhere/x.js:1:2)';
      expect(sourceStack(unmapped)).toBe(unmapped);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('invocations', () => {
  it('keep their keys and context apart when they interleave in one process, and outside any the process holds them', async () => {
    const log = new Logger('svc', 'INFO');
    const out: string[] = [];
    const o = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
    try {
      const one = (id: string, fn: string) =>
        runInvocation(async () => {
          log.addContext({ ...context, functionName: fn, awsRequestId: `aws-${id}` });
          log.appendKeys({ request_id: id });
          await new Promise((r) => setImmediate(r));
          log.info('line', { expect_id: id, expect_fn: fn });
        });
      await Promise.all([one('a', 'get-key'), one('b', 'wait-operation'), one('c', 'list-events')]);
      log.appendKeys({ request_id: 'outside' });
      log.info('line', { expect_id: 'outside' });
    } finally {
      o.mockRestore();
    }
    const lines = out.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(4);
    for (const l of lines) expect(l.request_id).toBe(l.expect_id);
    for (const l of lines.slice(0, 3)) expect([l.function_name, l.function_request_id]).toEqual([l.expect_fn, `aws-${l.expect_id}`]);
    expect(lines[3]).not.toHaveProperty('function_name');
  });
});
