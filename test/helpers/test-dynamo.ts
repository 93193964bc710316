/**
 * One real DynamoDB Local (in memory, on a free port) for the whole test run, with the
 * table created from the production definition. Workers inherit the endpoint through
 * the environment. Loaded by jest-global.cjs.
 */
import { ensureTable, type RunningDynamo, startDynamoLocal } from '../../infra/local/dynamodb-local.js';
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
