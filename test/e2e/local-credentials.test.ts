/**
 * Decision 236: the local stack belongs to the user who ran `npm start`. Its engines
 * (DynamoDB Local, the Step Functions endpoint) and the user pool's admin actions answer
 * only the run's own credentials, which are in its 0600 stack file; any other account on
 * the machine, signing with anything else, is refused. The stack's own flows (the
 * handlers, a workflow, npm run keys and users) still work.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CognitoIdentityProviderClient, ListUsersCommand } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import type { StackFile } from '../../cli-kit/stack-file.js';
import { LOCAL_USER_POOL_ID } from '../../local/user-pool.js';
import { callStack, freePort, keysCli, type LocalProcess, npmScript, startNpm } from '../helpers/local-process.js';

jest.setTimeout(240_000);

let dataDir: string;
let env: Record<string, string>;
let stack: LocalProcess | undefined;
let file: StackFile;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dm-owner-'));
  env = { PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), DATA_DIR: dataDir, PHASE_DELAY_MS: '200' };
  stack = await startNpm(env);
  file = JSON.parse(readFileSync(path.join(dataDir, 'stack.json'), 'utf8')) as StackFile;
});

afterAll(async () => {
  if (stack) await stack.stop().catch(() => stack!.kill());
  rmSync(dataDir, { recursive: true, force: true });
});

const region = 'us-east-1';
const others = [
  { accessKeyId: 'local', secretAccessKey: 'local' },
  { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
];
/** The stack's own pair, as its file gives it to the user who can read it. */
const own = () => ({ accessKeyId: file.credentials!.access_key_id, secretAccessKey: file.credentials!.secret_access_key });
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'answered',
    (e: { name?: string }) => e.name,
  );

describe('the local stack answers its owner alone', () => {
  it('keeps its credentials in the owner-only stack file, fresh and random', () => {
    expect(statSync(path.join(dataDir, 'stack.json')).mode & 0o777).toBe(0o600);
    expect(file.credentials?.access_key_id).toMatch(/^LOCL[A-Z0-9]{16}$/);
    expect(file.credentials?.secret_access_key.length).toBeGreaterThanOrEqual(40);
    expect(stack!.output()).not.toContain(file.credentials!.secret_access_key);
  });

  it('DynamoDB Local refuses any other credentials and answers the stack’s', async () => {
    const ddb = (credentials: { accessKeyId: string; secretAccessKey: string }) =>
      new DynamoDBClient({ endpoint: file.dynamodb_endpoint, region, credentials, maxAttempts: 1 });
    for (const c of others) expect(await refusal(ddb(c).send(new ListTablesCommand({})))).toBe('UnrecognizedClientException');
    expect((await ddb(own()).send(new ListTablesCommand({}))).TableNames?.length).toBeGreaterThan(0);
  });

  it('the Step Functions endpoint refuses any other credentials and answers the stack’s', async () => {
    const sfn = (credentials: { accessKeyId: string; secretAccessKey: string }) =>
      new SFNClient({ endpoint: file.sfn_endpoint, region, credentials, maxAttempts: 1 });
    const describe = new DescribeExecutionCommand({ executionArn: 'arn:aws:states:us-east-1:000000000000:execution:operation:none' });
    for (const c of others) expect(await refusal(sfn(c).send(describe))).toBe('UnrecognizedClientException');
    // The stack's own credentials get past the check to the engine, which knows no such execution.
    expect(await refusal(sfn(own()).send(describe))).not.toBe('UnrecognizedClientException');
  });

  it('the user pool refuses admin actions with any other credentials and answers the stack’s', async () => {
    const pool = (credentials: { accessKeyId: string; secretAccessKey: string }) =>
      new CognitoIdentityProviderClient({ endpoint: file.user_pool_endpoint, region, credentials, maxAttempts: 1 });
    const list = new ListUsersCommand({ UserPoolId: LOCAL_USER_POOL_ID });
    for (const c of others) expect(await refusal(pool(c).send(list))).toBe('UnrecognizedClientException');
    expect(await refusal(pool(own()).send(list))).toBe('answered');
  });

  it('its own flows still work: npm run keys and users, the handlers, a workflow to the end', async () => {
    const made = keysCli(['create', '--org', 'owner-org', '--name', 'mine', '--json'], env);
    expect(made.status).toBe(0);
    const key = JSON.parse(made.stdout).key as string;
    const user = npmScript('users', ['create', '--org', 'owner-org', '--email', 'me@example.com', '--role', 'admin', '--json'], env);
    expect(user.status).toBe(0);
    const created = await callStack(stack!, key, 'POST', '/deployments', { app_type: 'airflow', name: 'mine' });
    expect(created.status).toBe(202);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const op = await callStack(stack!, key, 'GET', `/operations/${created.body.data.operation_id}`);
      if (op.body.data.status === 'succeeded') break;
      expect(['queued', 'running']).toContain(op.body.data.status);
      if (Date.now() > deadline) throw new Error(`the create did not finish: ${JSON.stringify(op.body.data)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  });
});
