/**
 * One real DynamoDB Local (in memory, on a free port) for the whole test run, with the
 * table created from the production definition. Workers inherit the endpoint through
 * the environment. Loaded by jest-global.cjs.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../../contract/table/table.js';
import { ensureTable, type RunningDynamo, startDynamoLocal } from '../../local/dynamodb-local.js';
import { freePort } from './local-process.js';

export const TEST_TABLE = 'deployments-test';

export async function startTestDynamo(): Promise<RunningDynamo> {
  const port = await freePort();
  const dynamo = await startDynamoLocal(port, null);
  await ensureTable(dynamo.endpoint, TEST_TABLE);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
  process.env.TEST_DYNAMODB_PORT = String(port);
  return dynamo;
}

/**
 * A table of the production definition but without a stream, for a test file whose
 * thousands of writes must not flood the stream that other files' webhook pipelines read
 * from the shared test table. The file sets TABLE_NAME to it before its first request.
 */
export async function createStreamlessTable(tableName: string): Promise<void> {
  const client = new DynamoDBClient({});
  try {
    await client.send(new CreateTableCommand({ ...createTableInput(tableName), StreamSpecification: undefined }));
  } finally {
    client.destroy();
  }
}
