/**
 * Starts one real DynamoDB Local (in memory, on a free port) for the whole test run and
 * creates the table from the production definition. Workers inherit the endpoint
 * through the environment.
 */
import net from 'node:net';
import { ensureTable, startDynamoLocal } from '../../infra/local/dynamodb-local';

export const TEST_TABLE = 'deployments-test';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export default async function globalSetup(): Promise<void> {
  const port = await freePort();
  const dynamo = await startDynamoLocal(port, null);
  await ensureTable(dynamo.endpoint, TEST_TABLE);
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
  process.env.TEST_DYNAMODB_PORT = String(port);
  (globalThis as { __dynamo?: typeof dynamo }).__dynamo = dynamo;
}
