/** The whole local service: DynamoDB Local, the Step Functions endpoint, and the API. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../../functions/routes';
import { createApiServer } from './api-server';
import { ensureTable, startDynamoLocal, type RunningDynamo } from './dynamodb-local';
import { applyLocalEnv, LOCAL_TABLE_NAME, type LocalSettings } from './env';

export interface RunningStack {
  baseUrl: string;
  stop(): Promise<void>;
}

export async function startLocalStack(settings: LocalSettings): Promise<RunningStack> {
  const dynamo: RunningDynamo = await startDynamoLocal(settings.dynamodbPort, settings.dataDir);
  let server: http.Server | undefined;
  try {
    applyLocalEnv(settings);
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME ?? LOCAL_TABLE_NAME);
    server = createApiServer();
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(settings.port, '0.0.0.0', () => resolve());
    });
  } catch (e) {
    await dynamo.stop();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://localhost:${port}${API_PREFIX}`,
    async stop() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        server!.closeAllConnections();
      });
      await dynamo.stop();
    },
  };
}
