/** The whole local service: DynamoDB Local, the Step Functions endpoint, and the API. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { reconcileOperations, type Reconciled } from '../../functions/core/workflow-steps';
import { config } from '../../functions/lib/config';
import { API_PREFIX } from '../../functions/routes';
import { createApiServer } from './api-server';
import { ensureTable, startDynamoLocal, type RunningDynamo } from './dynamodb-local';
import { applyLocalEnv, LOCAL_TABLE_NAME, type LocalSettings } from './env';
import { LocalStepFunctions, localStateMachineArn, startSfnEndpoint, type SfnEndpointOptions } from './sfn-endpoint';

export interface RunningStack {
  baseUrl: string;
  /** What start-up did with operations whose workflows stopped with the last run. */
  reconciled: Reconciled;
  stepFunctions: LocalStepFunctions;
  stop(): Promise<void>;
}

export interface StackOptions extends SfnEndpointOptions {
  /** Keep DynamoDB in memory instead of under dataDir (tests). */
  inMemory?: boolean;
}

export async function startLocalStack(settings: LocalSettings, options: StackOptions = {}): Promise<RunningStack> {
  const dynamo: RunningDynamo = await startDynamoLocal(settings.dynamodbPort, options.inMemory ? null : settings.dataDir);
  const stepFunctions = new LocalStepFunctions(options);
  let sfn: Awaited<ReturnType<typeof startSfnEndpoint>> | undefined;
  let server: http.Server | undefined;
  let reconciled: Reconciled = { ended: [], resumed: [] };
  try {
    sfn = await startSfnEndpoint(stepFunctions);
    // The SDK clients and config read these lazily, at first use: set them before anything runs.
    applyLocalEnv(settings, { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, AWS_ENDPOINT_URL_SFN: sfn.endpoint, STATE_MACHINE_ARN: localStateMachineArn('operation') });
    await ensureTable(dynamo.endpoint, process.env.TABLE_NAME ?? LOCAL_TABLE_NAME);
    // Workflows do not survive a restart, their records do: resume them (the AWS reconciler's code, told to resume).
    reconciled = await reconcileOperations({ graceSeconds: 0, timeoutSeconds: config().operationTimeoutSeconds, resumeMissing: true });
    server = createApiServer();
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      // No host: Node listens on both IPv6 and IPv4 where it can, so `localhost` works either way.
      server!.listen(settings.port, () => resolve());
    });
  } catch (e) {
    await sfn?.close();
    await dynamo.stop();
    throw e;
  }
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://localhost:${port}${API_PREFIX}`,
    reconciled,
    stepFunctions,
    async stop() {
      await new Promise<void>((resolve) => {
        server!.close(() => resolve());
        server!.closeAllConnections();
      });
      await sfn!.close();
      await dynamo.stop();
    },
  };
}
