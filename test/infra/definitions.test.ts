/**
 * The declarations the stack is derived from, checked without synthesizing: every
 * function has an access entry, the environment names are the ones the code reads,
 * the ASL placeholders map to workflow modules, and context is validated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { dashboardHandlerNames } from '../../contract/dashboard-routes.js';
import { handlerNames } from '../../contract/routes.js';
import { PHASES } from '../../functions/core/operations.js';
import { PHASE_TIMEOUT_MAX_SECONDS } from '../../functions/lib/config.js';
import { NOT_FOUND_HANDLER, requireCertificateInRegion } from '../../infra/aws/api.js';
import {
  EVENTS_FUNCTIONS,
  FUNCTION_ACCESS,
  HEALTH_CHECK_FUNCTION,
  HIBERNATION_SCHEDULE_FUNCTION,
  physicalIndexes,
  SCHEDULED_FUNCTION,
} from '../../infra/aws/function-access.js';
import { type FunctionEnvName, functionEnv, POWERTOOLS_ENV } from '../../infra/aws/function-env.js';
import { entryOf } from '../../infra/aws/functions.js';
import { type ContextKey, readSettings } from '../../infra/aws/settings.js';
import { aslSteps, OPERATION_ASL } from '../../infra/aws/state-machine.js';

const ROOT = path.join(import.meta.dirname, '../..');
const moduleNames = (dir: string) =>
  fs
    .readdirSync(path.join(ROOT, 'functions', dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.slice(0, -3))
    .sort();

describe('FUNCTION_ACCESS', () => {
  const asl = fs.readFileSync(OPERATION_ASL, 'utf8');

  it('covers every handler of both route tables, the fallback, and every workflow step, and nothing else', () => {
    const steps = aslSteps(asl).map((st) => st.name);
    const expected = [
      ...new Set([
        ...handlerNames,
        ...dashboardHandlerNames,
        NOT_FOUND_HANDLER,
        ...steps,
        SCHEDULED_FUNCTION,
        HEALTH_CHECK_FUNCTION,
        HIBERNATION_SCHEDULE_FUNCTION,
        ...EVENTS_FUNCTIONS,
      ]),
    ].sort();
    expect(Object.keys(FUNCTION_ACCESS).sort()).toEqual(expected);
  });

  it('names a module that exists for every entry (and every workflow module is deployed)', () => {
    expect(moduleNames('workflow')).toEqual(
      [...aslSteps(asl).map((st) => st.name), SCHEDULED_FUNCTION, HEALTH_CHECK_FUNCTION, HIBERNATION_SCHEDULE_FUNCTION].sort(),
    );
    for (const name of [...handlerNames, ...dashboardHandlerNames, NOT_FOUND_HANDLER])
      expect(fs.existsSync(entryOf('http', name))).toBe(true);
    expect(moduleNames('events')).toEqual([...EVENTS_FUNCTIONS].sort());
  });

  it('lets only the functions that take secrets encrypt, each decrypt only its own purpose, and only the events functions queue deliveries', () => {
    const withKms = Object.fromEntries(Object.entries(FUNCTION_ACCESS).flatMap(([n, a]) => (a.kms.length ? [[n, a.kms]] : [])));
    // The deliverer opens webhooks' secrets; the creating function only its own answers kept for replays. A deployment's
    // env secrets are sealed where they are sent (create, PATCH) and opened only by the step that hands them to the driver.
    expect(withKms).toEqual({
      'create-webhook': ['Encrypt', 'Decrypt:replay'],
      // Decision 51: an app user's password is sealed for its operation, and in the answer kept for replays.
      'create-app-user': ['Encrypt', 'Decrypt:replay'],
      'deliver-webhooks': ['Decrypt:delivery'],
      'create-deployment': ['Encrypt'],
      'update-deployment': ['Encrypt'],
      // Decision 146: the dashboard's create and update as the public ones.
      'dashboard-create-deployment': ['Encrypt'],
      'dashboard-update-deployment': ['Encrypt'],
      // Decision 256: and an operation's sealed input (an app user's password).
      'start-phase': ['Decrypt:deployment-env', 'Decrypt:operation-input'],
      // Decision 136: to find secret values in the driver's log lines.
      'check-phase': ['Decrypt:deployment-env', 'Decrypt:operation-input'],
    });
    const withQueue = Object.fromEntries(Object.entries(FUNCTION_ACCESS).flatMap(([n, a]) => (a.queue.length ? [[n, a.queue]] : [])));
    expect(withQueue).toEqual({ 'dispatch-events': ['SendMessage'], 'deliver-webhooks': ['SendMessage'] });
  });

  it('gives the handlers that start or stop workflows exactly those Step Functions actions', () => {
    const states = Object.fromEntries(
      Object.entries(FUNCTION_ACCESS)
        .filter(([, a]) => a.states.length)
        .map(([n, a]) => [n, [...a.states].sort()]),
    );
    expect(states).toEqual({
      'create-deployment': ['StartExecution'],
      'delete-deployment': ['StartExecution', 'StopExecution'],
      'create-dag-sync': ['StartExecution'],
      'create-app-user': ['StartExecution'],
      'update-deployment': ['StartExecution'],
      'rollback-deployment': ['StartExecution'],
      // Decision 50: a hibernate or a wake, by request or by schedule.
      'change-hibernation': ['StartExecution'],
      'run-hibernation-schedule': ['StartExecution'],
      'cancel-operation': ['StopExecution'],
      'dashboard-create-deployment': ['StartExecution'],
      'dashboard-destroy-deployment': ['StartExecution', 'StopExecution'],
      'dashboard-update-deployment': ['StartExecution'],
      'dashboard-rollback-deployment': ['StartExecution'],
      'dashboard-change-hibernation': ['StartExecution'],
      'dashboard-cancel-operation': ['StopExecution'],
      'reconcile-operations': ['DescribeExecution', 'StopExecution'],
    });
    expect(FUNCTION_ACCESS['reconcile-operations'].query).toEqual({
      table: false,
      indexes: ['activeOperations'],
      reach: ['activeOperations'],
    });
    expect(physicalIndexes(FUNCTION_ACCESS['reconcile-operations'].query.indexes)).toEqual(['gsi5']);
  });
});

describe('function environment', () => {
  const sources = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) =>
        e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [fs.readFileSync(path.join(dir, e.name), 'utf8')] : [],
      );

  it('uses only names the functions read (config.ts and friends)', () => {
    const code = sources(path.join(ROOT, 'functions')).join('\n');
    const names: FunctionEnvName[] = [
      'TABLE_NAME',
      'APP_DOMAIN',
      'STATE_MACHINE_ARN',
      'PHASE_DELAY_MS',
      'RATE_LIMIT_PER_HOUR',
      'RATE_LIMIT_PER_MINUTE',
      'CREATE_LIMIT_PER_HOUR',
      'PHASE_TIMEOUT_SECONDS',
      'WEBHOOK_ALLOW_INSECURE',
      'WEBHOOK_KMS_KEY_ID',
      'DELIVERY_QUEUE_URL',
      'SWAGGER_UI_DIST',
    ];
    for (const n of names) expect({ n, read: new RegExp(`\\b${n}\\b`).test(code) }).toEqual({ n, read: true });
    const config = fs.readFileSync(path.join(ROOT, 'functions/lib/config.ts'), 'utf8');
    const env = functionEnv({
      settings: readSettings(() => undefined),
      tableName: 't',
      stateMachineArn: 'arn',
      deliveryQueueUrl: 'https://sqs',
      webhookKeyId: 'arn:key',
    });
    // Powertools' own variables are read by Powertools, beside the service's logger and metrics.
    const powertools = fs.readFileSync(path.join(ROOT, 'functions/lib/metrics.ts'), 'utf8');
    for (const k of Object.keys(env))
      expect(POWERTOOLS_ENV.includes(k as never) ? powertools : config).toMatch(
        new RegExp(`\\b${k}${POWERTOOLS_ENV.includes(k as never) ? '' : ':'}`),
      );
  });

  it('gives the workflow room for every phase of an operation at the longest phase limit', () => {
    const longest = Math.max(...Object.values(PHASES).map((p) => p.work.length));
    expect(JSON.parse(fs.readFileSync(OPERATION_ASL, 'utf8')).TimeoutSeconds).toBeGreaterThan(longest * PHASE_TIMEOUT_MAX_SECONDS);
  });
});

describe('aslSteps', () => {
  it('derives workflow module names from ${XFunctionArn} placeholders, once each', () => {
    const text = '{"A":"${StartPhaseFunctionArn}","B":"${FailOperationFunctionArn}","C":"${StartPhaseFunctionArn}"}';
    expect(aslSteps(text)).toEqual([
      { placeholder: 'StartPhaseFunctionArn', name: 'start-phase' },
      { placeholder: 'FailOperationFunctionArn', name: 'fail-operation' },
    ]);
  });

  it('refuses placeholders it cannot fill', () => {
    expect(() => aslSteps('{"A":"${TableName}"}')).toThrow(/FunctionArn/);
    expect(() => aslSteps('{"A":"${NoSuchStepFunctionArn}"}')).toThrow(/no-such-step/);
  });
});

describe('settings from context', () => {
  const from = (ctx: Partial<Record<ContextKey, string>>) => readSettings((k) => ctx[k]);

  it('defaults to dev: destroyable, a week of logs, no WAF', () => {
    expect(from({})).toMatchObject({
      stage: 'dev',
      removalPolicy: RemovalPolicy.DESTROY,
      deletionProtection: false,
      reservedConcurrency: false,
      waf: false,
      appDomain: 'apps.example.com',
    });
  });

  it('makes prod retained and protected, with WAF on unless turned off', () => {
    expect(from({ stage: 'prod' })).toMatchObject({
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
      deletionProtection: true,
      waf: true,
    });
    expect(from({ stage: 'prod', deletionProtection: 'false' }).deletionProtection).toBe(false);
  });

  it("fails synth with a clear message when the certificate is not in the stack's known region", () => {
    const app = new App();
    const stack = new Stack(app, 'S', { env: { account: '123456789012', region: 'us-east-1' } });
    expect(() => requireCertificateInRegion(stack, 'arn:aws:acm:eu-west-1:123456789012:certificate/abc')).toThrow(
      /certificate in eu-west-1, but the API is regional: give a certificate for the custom domain in the stack's region \(us-east-1\)/,
    );
    expect(() => requireCertificateInRegion(stack, 'arn:aws:acm:us-east-1:123456789012:certificate/abc')).not.toThrow();
  });

  it('reserves no concurrency in any stage unless a setting asks for it (a new account could not deploy)', () => {
    expect(from({ stage: 'prod' }).reservedConcurrency).toBe(false);
    expect(from({ stage: 'dev' }).reservedConcurrency).toBe(false);
    expect(from({ stage: 'prod', reservedConcurrency: 'true' }).reservedConcurrency).toBe(true);
    expect(from({ stage: 'prod', waf: 'false' }).waf).toBe(false);
  });

  it('rejects what it does not understand', () => {
    expect(() => from({ stage: 'staging' })).toThrow(/stage/);
    expect(() => from({ domainName: 'api.example.org' })).toThrow(/certificateArn/);
    expect(() => from({ domainName: 'api.example.org', certificateArn: 'nope' })).toThrow(/ACM/);
    expect(() => from({ waf: 'yes' })).toThrow(/waf/);
    expect(() => from({ rateLimitPerHour: '0' })).toThrow(/rateLimitPerHour/);
  });
});
