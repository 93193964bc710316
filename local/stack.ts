/** The whole local service: DynamoDB Local, the Step Functions endpoint, and the API. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../contract/routes.js';
import { hostingPlatform } from '../functions/adapters/platform/hosting-platform.js';
import { type Reconciled, reconcileOperations } from '../functions/app/workflow-steps.js';
import { CONFIG_DEFAULTS, config } from '../functions/lib/config.js';
import { createApiServer } from './api-server.js';
import { type AwsTwin, startAwsTwin, twinEndpoints } from './aws-twin/twin.js';
import { runAsFunction } from './current-function.js';
import { type DashboardHost, startDashboardHost } from './dashboard-host.js';
import { ensureTable, type RunningDynamo, startDynamoLocal } from './dynamodb-local.js';
import { type EngineCredentials, newEngineCredentials } from './engine-credentials.js';
import { applyLocalEnv, LOCAL_TABLE_NAME, type LocalSettings, localSecretKey } from './env.js';
import { type EventPipeline, startEventPipeline } from './event-pipeline.js';
import { startHealthChecker } from './health-checker.js';
import { startHibernationScheduler } from './hibernation-scheduler.js';
import type { ScheduledRounds } from './scheduled-rounds.js';
import { LocalStepFunctions, localStateMachineArn, type SfnEndpointOptions, startSfnEndpoint } from './sfn-endpoint.js';
import { localStandIns, useStandIns } from './stand-ins.js';
import { releaseClaims } from './table-queue.js';
import { LOCAL_CLIENT_ID, USER_POOL_PATH } from './user-pool.js';

export interface RunningStack {
  baseUrl: string;
  /** DynamoDB Local's endpoint and the emulated user pool's, for the tools that talk to them (cli-kit/stack-file.ts). */
  dynamodbEndpoint: string;
  userPoolEndpoint: string;
  /** The Step Functions endpoint, and this run's credentials for the engines (decision 236). */
  sfnEndpoint: string;
  credentials: EngineCredentials;
  /** What start-up did with operations whose workflows stopped with the last run. */
  reconciled: Reconciled;
  stepFunctions: LocalStepFunctions;
  /** With PLATFORM=ecs: the local AWS twin the ECS driver runs against (decision 52). */
  twin?: AwsTwin;
  stop(): Promise<void>;
}

export interface StackOptions extends SfnEndpointOptions {
  /** Keep DynamoDB in memory instead of under dataDir (tests). */
  inMemory?: boolean;
}

/** How long each of the workflow's waits lasts on the local AWS twin. */
const TWIN_WAIT_MS = 1000;

export async function startLocalStack(settings: LocalSettings, options: StackOptions = {}): Promise<RunningStack> {
  // Decision 236: this run's engines answer these credentials only; the handlers sign with them (the SDK reads the variables).
  const credentials = newEngineCredentials();
  applyLocalEnv(settings, { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey });
  // Decision 52: PLATFORM=ecs runs the real ECS driver against a local AWS twin (moto), started beside DynamoDB Local.
  const [started, twinStarted] = await Promise.allSettled([
    startDynamoLocal(settings.dynamodbPort, options.inMemory ? null : settings.dataDir, credentials.accessKeyId),
    process.env.PLATFORM === 'ecs' ? startAwsTwin({ domain: process.env.APP_DOMAIN || CONFIG_DEFAULTS.APP_DOMAIN }) : undefined,
  ]);
  if (started.status === 'rejected' || twinStarted.status === 'rejected') {
    if (started.status === 'fulfilled') await started.value.stop();
    if (twinStarted.status === 'fulfilled') await twinStarted.value?.stop();
    throw started.status === 'rejected' ? started.reason : (twinStarted as PromiseRejectedResult).reason;
  }
  const dynamo: RunningDynamo = started.value;
  const twin: AwsTwin | undefined = twinStarted.value;
  if (twin) applyLocalEnv(settings, { ...twinEndpoints(twin.endpoint), PLATFORM_SETTINGS: JSON.stringify(twin.settings) });
  // The twin runs a rollout or a task in a second or two, where AWS takes minutes: the workflow's
  // waits between checks (what the driver asks for AWS) last a second here (decision 270).
  const stepFunctions = new LocalStepFunctions(twin && options.waitMs === undefined ? { ...options, waitMs: TWIN_WAIT_MS } : options);
  let sfn: Awaited<ReturnType<typeof startSfnEndpoint>> | undefined;
  let servers: http.Server[] = [];
  let reconciled: Reconciled = { ended: [], resumed: [] };
  let pipeline: EventPipeline | undefined;
  let checker: ScheduledRounds | undefined;
  let scheduler: ScheduledRounds | undefined;
  const dataDir = options.inMemory ? null : settings.dataDir;
  try {
    sfn = await startSfnEndpoint(stepFunctions, 0, credentials.accessKeyId);
    // The SDK clients and config read these lazily, at first use: set them before anything runs.
    applyLocalEnv(settings, {
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SFN: sfn.endpoint,
      STATE_MACHINE_ARN: localStateMachineArn('operation'),
    });
    useStandIns(localStandIns(localSecretKey(dataDir)));
    const tableName = process.env.TABLE_NAME ?? LOCAL_TABLE_NAME;
    const dashboard = await startDashboardHost({
      dataDir,
      tokenSeconds: settings.dashboardTokenSeconds,
      adminAccessKeyId: credentials.accessKeyId,
    });
    await ensureTable(dynamo.endpoint, tableName);
    // The pool's issuer names the port, known once the server listens; nothing reads the configuration before that.
    servers = await listenApi(settings, dashboard);
    const apiPort = (servers[0]!.address() as AddressInfo).port;
    applyLocalEnv(settings, {
      DASHBOARD_TOKEN_ISSUER: dashboard.issuerFor(apiPort),
      DASHBOARD_CLIENT_ID: LOCAL_CLIENT_ID,
      // Key management asks the pool about the signed-in user (AdminGetUser), as it asks Cognito on AWS.
      AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: `http://127.0.0.1:${apiPort}${USER_POOL_PATH}/`,
    });
    // Workflows do not survive a restart, their records do: resume them (the AWS reconciler's code, told to resume).
    reconciled = await runAsFunction('reconcile-operations', () =>
      reconcileOperations({
        graceSeconds: 0,
        phaseTimeoutSeconds: config().phaseTimeoutSeconds,
        platform: hostingPlatform(),
        resumeMissing: true,
      }),
    );
    // Deliveries the last run had claimed but not finished (it was killed) are due again now.
    await releaseClaims();
    pipeline = startEventPipeline({ endpoint: dynamo.endpoint, tableName, dataDir });
    checker = startHealthChecker(config().healthCheckSeconds);
    scheduler = startHibernationScheduler();
  } catch (e) {
    await scheduler?.stop();
    await checker?.stop();
    await pipeline?.stop();
    await Promise.all(servers.map(close));
    await sfn?.close();
    await dynamo.stop();
    await twin?.stop();
    throw e;
  }
  const port = (servers[0]!.address() as AddressInfo).port;
  return {
    baseUrl: `http://localhost:${port}${API_PREFIX}`,
    dynamodbEndpoint: dynamo.endpoint,
    sfnEndpoint: sfn!.endpoint,
    credentials,
    userPoolEndpoint: `http://127.0.0.1:${port}${USER_POOL_PATH}/`,
    reconciled,
    stepFunctions,
    ...(twin ? { twin } : {}),
    async stop() {
      await scheduler!.stop();
      await checker!.stop();
      await pipeline!.stop();
      await Promise.all(servers.map(close));
      await sfn!.close();
      await dynamo.stop();
      await twin?.stop();
    },
  };
}

/**
 * The API on HOST when it is set, else on both loopback addresses (so `localhost` works
 * whichever it resolves to) and nowhere else: the local stack has no TLS and trusts its machine.
 */
async function listenApi(settings: LocalSettings, dashboard: DashboardHost): Promise<http.Server[]> {
  const listen = (host: string, port: number) =>
    new Promise<http.Server>((resolve, reject) => {
      const server = createApiServer(dashboard.routes, settings.host);
      server.once('error', reject);
      server.listen(port, host, () => resolve(server));
    });
  if (settings.host) return [await listen(settings.host, settings.port)];
  const v4 = await listen('127.0.0.1', settings.port);
  const { port } = v4.address() as AddressInfo;
  try {
    return [v4, await listen('::1', port)];
  } catch (e) {
    // A machine without IPv6 has no ::1; anything else (the port taken on ::1) is a real failure.
    if (['EADDRNOTAVAIL', 'EAFNOSUPPORT'].includes((e as NodeJS.ErrnoException).code ?? '')) return [v4];
    await close(v4);
    throw e;
  }
}

function close(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
