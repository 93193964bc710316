/**
 * Starts one real DynamoDB Local (in memory, on a free port) for the whole test run and
 * creates the table from the production definition. Workers inherit the endpoint
 * through the environment.
 */
import { ensureTable, startDynamoLocal } from '../../infra/local/dynamodb-local';
import { freePort } from './local-process';

export const TEST_TABLE = 'deployments-test';

export default async function globalSetup(): Promise<void> {
  const port = await freePort();
  const dynamo = await startDynamoLocal(port, null);
  await ensureTable(dynamo.endpoint, TEST_TABLE);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
  process.env.TEST_DYNAMODB_PORT = String(port);
  (globalThis as { __dynamo?: typeof dynamo }).__dynamo = dynamo;
}
