/**
 * A small run of `npm run bench`'s request, contention and cold-start sections: the
 * counting is checked against calls made on purpose, and the report's structure
 * against a real run at tiny sizes. Timings are printed by the benchmark, never asserted.
 */

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { attributed } from '../../bench/call-counter.js';
import { CLI_OVER_NODE_MS, measureCli, printCliReport } from '../../bench/cli.js';
import {
  buildFloor,
  bundledClients,
  bundledCommands,
  DRIVER_CLIENTS,
  declaredClients,
  importOnce,
  pairedImports,
} from '../../bench/cold-start.js';
import { runContention } from '../../bench/contention.js';
import { printRequestsReport } from '../../bench/report-requests.js';
import {
  measureOverhead,
  measureRow,
  type RequestBench,
  type RequestsOptions,
  ROWS,
  startRequestBench,
  unconditional,
} from '../../bench/requests.js';
import { ddb, tableName } from '../../functions/adapters/dynamo/client.js';
import { FUNCTION_ACCESS } from '../../infra/aws/function-access.js';
import { PLATFORM_USE } from '../../infra/aws/platform/driver-grants.js';

// The rows send more requests than the default limits allow in a minute; config() reads these at first use.
const LIMITS = ['RATE_LIMIT_PER_HOUR', 'RATE_LIMIT_PER_MINUTE', 'CREATE_LIMIT_PER_HOUR'] as const;
const saved = Object.fromEntries(LIMITS.map((k) => [k, process.env[k]]));
for (const k of LIMITS) process.env[k] = '1000000';
afterAll(() => {
  for (const k of LIMITS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

// Load runs by count, not by time: on a busy CI machine 0.3 s may see no request finish.
const OPTIONS: RequestsOptions = { durationS: 0.3, loadRequests: 20, connections: 2, once: 2, overheadS: 0.3 };
const row = (label: string) => ROWS.find((r) => r.label === label)!;

let bench: RequestBench;
beforeAll(async () => {
  bench = await startRequestBench(OPTIONS);
}, 60_000);
afterAll(() => bench?.close());

describe('the call counter', () => {
  it('counts the calls a request makes, and as sequential only those that start with none of its own in flight', async () => {
    const get = () => ddb.send(new GetCommand({ TableName: tableName(), Key: { pk: 'NONE', sk: 'NONE' } }));
    const { calls, value } = attributed(async () => {
      await get();
      await Promise.all([get(), get()]);
      await get();
    });
    await value;
    expect(calls).toMatchObject({ calls: 4, sequential: 3, startExecutions: 0, commands: ['GetItem', 'GetItem', 'GetItem', 'GetItem'] });
    expect(calls.recorded.map((c) => c.round)).toEqual([0, 1, 1, 2]);
    // A call outside any request belongs to none.
    await get();
    expect(calls.calls).toBe(4);
  });

  it('replays a write without its condition, keeping only the names and values the rest still uses', () => {
    expect(
      unconditional({
        Key: { pk: 'a' },
        UpdateExpression: 'SET #n = :v',
        ConditionExpression: 'attribute_exists(pk) AND #c < :max',
        ExpressionAttributeNames: { '#n': 'n', '#c': 'c' },
        ExpressionAttributeValues: { ':v': 1, ':max': 5 },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    ).toEqual({
      Key: { pk: 'a' },
      UpdateExpression: 'SET #n = :v',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: { ':v': 1 },
    });
    expect(unconditional({ Item: { pk: 'a' }, ConditionExpression: 'attribute_not_exists(pk)' })).toEqual({ Item: { pk: 'a' } });
  });
});

describe('the request rows', () => {
  it("measures a deployment's health and metrics within the other reads' goals (decisions 48, 49)", async () => {
    for (const label of ['GET /deployments/{id}/health', 'GET /deployments/{id}/metrics']) {
      const m = await measureRow(bench, row(label), OPTIONS);
      expect({ label, requests: m.requests > 0, wrongStatus: m.wrongStatus, starts: m.starts }).toEqual({
        label,
        requests: true,
        wrongStatus: 0,
        starts: [0, 0],
      });
      for (const calls of m.calls) expect({ label, calls: calls <= 3 }).toEqual({ label, calls: true });
      expect({ label, pass: m.pass, sequential: m.sequential }).toEqual({ label, pass: true, sequential: m.sequential });
    }
  });

  it('count each route’s DynamoDB calls and StartExecutions through the local API server, under load and one by one', async () => {
    const read = await measureRow(bench, row('GET /deployments/{id}'), OPTIONS);
    expect(read.requests).toBeGreaterThan(0);
    expect(read.wrongStatus).toBe(0);
    // The key is admitted first (one UpdateItem), then the deployment read and the usage entry
    // go in parallel: goal 1's 3 calls in 2 round trips; no workflow is started.
    expect(read.commands[0]).toBe('UpdateItem');
    expect(read.calls).toEqual([3, 3]);
    expect(read.sequential[1]).toBeLessThanOrEqual(2);
    expect(read.starts).toEqual([0, 0]);
    expect(read.pass).toBe(true);

    const create = await measureRow(bench, row('POST /deployments'), OPTIONS);
    expect(create.requests).toBe(OPTIONS.once);
    expect(create.wrongStatus).toBe(0);
    expect(create.starts).toEqual([1, 1]);
    expect(create.commands).toContain('TransactWriteItems');
    expect(create.calls[1]).toBeLessThanOrEqual(4);

    const destroy = await measureRow(bench, row('DELETE /deployments/{id}'), OPTIONS);
    expect(destroy.wrongStatus).toBe(0);
    expect(destroy.starts).toEqual([1, 1]);

    const overhead = await measureOverhead(bench, OPTIONS);
    expect(overhead.floorRounds.flat()).toEqual(read.commands.map((c) => c.replace(/Item(s?)$/, '$1')));
    expect(overhead.stackReqPerSec).toBeGreaterThan(0);
    expect(overhead.floorReqPerSec).toBeGreaterThan(0);

    const contention = await runContention({ ...bench.fixture, requests: 6 });
    expect(Object.values(contention.byStatus).reduce((a, b) => a + b, 0)).toBe(6);
    expect(contention.byStatus[202]).toBeGreaterThan(0);
    expect(contention.answers.filter((a) => a.status === 202).every((a) => a.operationId?.startsWith('op_'))).toBe(true);

    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    try {
      printRequestsReport({ requests: { rows: [read, create, destroy], overhead, options: OPTIONS }, contention, coldStart: undefined });
    } finally {
      log.mockRestore();
    }
    const text = lines.join('\n');
    expect(text).toMatch(/route\s+requests\s+calls\s+seq\s+start\s+p50 ms\s+p99 ms\s+req\/s\s+goal\s+verdict/);
    expect(text).toMatch(
      /^(PASS|FAIL) {2}GET \/deployments\/\{id\}: \d+ calls, \d+ sequential, 0 StartExecution \(goal ≤ 3 in ≤ 2 seq\)$/m,
    );
    expect(text).toMatch(/^(PASS|FAIL) {2}handler stack: [\d.]+× of the floor's throughput \(goal ≥ 0.7×\)$/m);
    expect(text).toMatch(/^(PASS|FAIL) {2}contention: \d+ answers ≥ 500 \(goal: none\)$/m);
  }, 120_000);
});

describe('the cold-start floor', () => {
  it('holds only the SDK clients a function is declared to use and Powertools, built and imported as the functions are', async () => {
    // Every keyed function reads the key-signing secret once (decision 121).
    expect(declaredClients(FUNCTION_ACCESS['get-deployment']!)).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-secrets-manager',
    ]);
    // A create seals the env secrets it is given (decision 41): the KMS client too.
    expect(declaredClients(FUNCTION_ACCESS['create-deployment']!)).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-sfn',
      '@aws-sdk/client-secrets-manager',
      '@aws-sdk/client-kms',
    ]);
    // Key management asks the user pool about the signed-in user (AdminGetUser): the Cognito client.
    expect(declaredClients(FUNCTION_ACCESS['dashboard-revoke-key']!)).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-cognito-identity-provider',
    ]);
    // A function that calls the ECS driver (PLATFORM_USE) makes its clients too, each once.
    expect(declaredClients(FUNCTION_ACCESS['cancel-operation']!, PLATFORM_USE['cancel-operation'])).toEqual([
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-sfn',
      '@aws-sdk/client-secrets-manager',
      ...DRIVER_CLIENTS.filter((c) => c !== '@aws-sdk/client-secrets-manager'),
    ]);
    expect(declaredClients(FUNCTION_ACCESS['create-deployment']!, PLATFORM_USE['create-deployment'])).not.toContain('@aws-sdk/client-ecs');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-floor-'));
    try {
      const floor = await buildFloor(declaredClients(FUNCTION_ACCESS['get-deployment']!), dir);
      expect(bundledClients(`${floor}.map`).sort()).toEqual(
        ['@aws-sdk/client-dynamodb', '@aws-sdk/client-secrets-manager', '@aws-sdk/lib-dynamodb'].sort(),
      );
      // Every function logs and counts with Powertools: so does the floor.
      const { sources } = JSON.parse(fs.readFileSync(`${floor}.map`, 'utf8')) as { sources: string[] };
      for (const pkg of ['@aws-lambda-powertools/logger/', '@aws-lambda-powertools/metrics/'])
        expect(sources.some((s) => s.includes(`node_modules/${pkg}`))).toBe(true);
      // A floor also holds the commands its function sends (decision 204), and only those of its declared clients.
      const clients = declaredClients(FUNCTION_ACCESS['get-deployment']!);
      expect(bundledCommands(`${floor}.map`, clients).map(([, k]) => k)).not.toContain('GetCommand');
      const withCommands = await buildFloor(clients, path.join(dir, 'commands'), [['@aws-sdk/lib-dynamodb', 'GetCommand']]);
      expect(bundledCommands(`${withCommands}.map`, clients)).toContainEqual(['@aws-sdk/lib-dynamodb', 'GetCommand']);
      expect(bundledCommands(`${withCommands}.map`, ['@aws-sdk/client-secrets-manager'])).not.toContainEqual([
        '@aws-sdk/lib-dynamodb',
        'GetCommand',
      ]);
      expect(fs.statSync(withCommands).size).toBeGreaterThan(fs.statSync(floor).size);
      const time = await importOnce(floor, '');
      expect(time.cpuMs).toBeGreaterThan(0);
      expect(time.wallMs).toBeGreaterThan(0);
      // Each run imports both files of a pair, one right after the other; the ratio is the median of the runs'.
      const [pair] = await pairedImports([{ a: withCommands, aOptions: '', b: floor, bOptions: '' }], 3);
      expect(pair).toEqual({
        a: { cpuMs: expect.any(Number), wallMs: expect.any(Number) },
        b: { cpuMs: expect.any(Number), wallMs: expect.any(Number) },
        ratio: expect.any(Number),
      });
      expect(pair!.ratio).toBeGreaterThan(0);
      expect(Number.isFinite(pair!.ratio)).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the cli section', () => {
  it('runs deployctl deployments get against the bench server, beside node -e, and reports one verdict line', async () => {
    const result = await measureCli(bench.fixture, 1);
    expect(result).toEqual({
      runs: 1,
      deployctlMs: expect.any(Number),
      nodeMs: expect.any(Number),
      pass: result.deployctlMs <= result.nodeMs + CLI_OVER_NODE_MS,
    });
    const lines: string[] = [];
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    try {
      printCliReport(result);
    } finally {
      log.mockRestore();
    }
    expect(lines.join('\n')).toMatch(
      /^(PASS|FAIL) {2}deployctl deployments get <id> \(bin\/ on the PATH\): \d+ ms; node -e '': \d+ ms; \+-?\d+ ms$/m,
    );
  }, 120_000);
});
