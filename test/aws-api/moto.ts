/**
 * moto's server (`moto_server`), an independent implementation of the AWS APIs, on a
 * free port for the AWS-API suite: DynamoDB, SQS, KMS, Cognito, Secrets Manager and Step
 * Functions all answer on its one endpoint, told apart by the request as AWS tells them apart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../../contract/table/table.js';

/** What `npm run test:aws-api` prints, alone, on a machine without moto. */
export const MOTO_MISSING =
  "moto_server was not found: install it with pip install 'moto[server]' (Python 3), then run npm run test:aws-api again.";

export class MotoMissingError extends Error {}

export interface RunningMoto {
  endpoint: string;
  stop(): Promise<void>;
}

/** The AWS_ENDPOINT_URL_* variables that send each service's SDK client to moto. */
export const motoEndpoints = (endpoint: string): Record<string, string> => ({
  AWS_ENDPOINT_URL_DYNAMODB: endpoint,
  AWS_ENDPOINT_URL_SQS: endpoint,
  AWS_ENDPOINT_URL_KMS: endpoint,
  AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: endpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
  AWS_ENDPOINT_URL_SFN: endpoint,
});

const READY_WITHIN_MS = 60_000;

/** Starts `command` (moto_server unless told) on `port`; resolves once it answers, rejects with MotoMissingError when there is no such command. */
export async function startMoto(port: number, command = 'moto_server'): Promise<RunningMoto> {
  const endpoint = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(command, ['-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ENOENT' ? new MotoMissingError(MOTO_MISSING) : e));
    child.once('exit', (code) => resolve(new Error(`moto_server exited (${code}) before it answered:\n${err}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  };
  const deadline = Date.now() + READY_WITHIN_MS;
  let failed: Error | undefined;
  void exited.then((e) => (failed = e));
  while (!failed) {
    try {
      if ((await fetch(`${endpoint}/moto-api/data.json`)).ok) return { endpoint, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`moto_server did not answer on ${endpoint} within ${READY_WITHIN_MS / 1000} s:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw failed;
}

/** The table as the stack creates it (contract/table/table.ts), on moto's DynamoDB. */
export async function createMotoTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
  try {
    await client.send(new CreateTableCommand(createTableInput(tableName)));
  } finally {
    client.destroy();
  }
}
