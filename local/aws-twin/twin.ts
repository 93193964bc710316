/**
 * The local AWS twin (decision 52): moto's server on a free loopback port, the shared
 * platform resources made in it as the platform stack makes them, PGlite as its database
 * cluster, and the proxy that moves time in front of it. The ECS driver runs against the
 * proxy's endpoint exactly as it runs against AWS.
 */

import net from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { EcsSettings } from '../../functions/adapters/platform/ecs/settings.js';
import { TwinDatabase } from './data-api.js';
import { type RunningMoto, startMoto } from './moto-process.js';
import { startTwinProxy, type TwinFaults, type TwinProxyOptions } from './proxy.js';
import { createSharedResources, TWIN_REGION } from './shared-resources.js';

export const TWIN_MOTO_MISSING =
  "PLATFORM=ecs npm start needs moto's server on the PATH (moto_server): install it with pip install 'moto[server]' (Python 3), or run npm start without PLATFORM=ecs.";

export interface AwsTwin {
  /** Where the driver's clients send their calls (the proxy). */
  endpoint: string;
  motoEndpoint: string;
  settings: EcsSettings;
  faults: TwinFaults;
  /** How many AWS calls the twin has answered. */
  calls(): number;
  stop(): Promise<void>;
}

/** The variables that send the driver's SDK clients to the twin. */
export const twinEndpoints = (endpoint: string): Record<string, string> => ({
  AWS_ENDPOINT_URL_ECS: endpoint,
  AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING_V2: endpoint,
  AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoint,
  AWS_ENDPOINT_URL_RDS_DATA: endpoint,
  AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: endpoint,
  AWS_ENDPOINT_URL_CLOUDWATCH: endpoint,
  AWS_ENDPOINT_URL_ACM: endpoint,
  AWS_ENDPOINT_URL_ROUTE_53: endpoint,
});

/** A loopback port free now (moto_server takes a port number, not 0). */
const freeLoopbackPort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });

export async function startAwsTwin(options: { domain: string; command?: string } & TwinProxyOptions): Promise<AwsTwin> {
  const moto: RunningMoto = await startMoto(await freeLoopbackPort(), options.command, {
    missing: TWIN_MOTO_MISSING,
    // Certificates are issued at once in the twin (moto ignores DNS anyway).
    env: { MOTO_ACM_VALIDATION_WAIT: '0' },
  });
  const secrets = new SecretsManagerClient({
    endpoint: moto.endpoint,
    region: TWIN_REGION,
    credentials: { accessKeyId: 'twin', secretAccessKey: 'twin' },
  });
  const database = new TwinDatabase(secrets);
  try {
    const [settings] = await Promise.all([createSharedResources(moto.endpoint, options.domain), database.ready()]);
    const { domain: _domain, command: _command, ...proxyOptions } = options;
    const proxy = await startTwinProxy(moto.endpoint, database, proxyOptions);
    return {
      endpoint: proxy.endpoint,
      motoEndpoint: moto.endpoint,
      settings,
      faults: proxy.faults,
      calls: proxy.calls,
      async stop() {
        await proxy.close();
        await database.close();
        secrets.destroy();
        await moto.stop();
      },
    };
  } catch (e) {
    await database.close().catch(() => undefined);
    secrets.destroy();
    await moto.stop();
    throw e;
  }
}
