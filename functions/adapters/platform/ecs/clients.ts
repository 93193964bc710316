/**
 * The ECS driver's AWS SDK v3 clients, made once per process in the settings' region. Each
 * reads its endpoint from AWS_ENDPOINT_URL_<SERVICE> (or AWS_ENDPOINT_URL) as every SDK v3
 * client does, which is how the aws-api tests and the local host point them elsewhere.
 *
 * The IAM actions these calls need are granted in infra/aws/platform/driver-grants.ts; the
 * aws-api tests record every call the driver sends (watchPlatformCalls) and check each
 * against the grants of the driver's use that sent it, so a missing grant fails there.
 */
import { ACMClient } from '@aws-sdk/client-acm';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { ECSClient } from '@aws-sdk/client-ecs';
import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { RDSDataClient } from '@aws-sdk/client-rds-data';
import { Route53Client } from '@aws-sdk/client-route-53';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

export interface EcsClients {
  ecs: ECSClient;
  elb: ElasticLoadBalancingV2Client;
  secrets: SecretsManagerClient;
  rdsData: RDSDataClient;
  logs: CloudWatchLogsClient;
  cloudwatch: CloudWatchClient;
  acm: ACMClient;
  route53: Route53Client;
}

/** The IAM service prefix of each client's actions (the SDK's names are not IAM's for three of them). */
export const IAM_PREFIX: Readonly<Record<keyof EcsClients, string>> = {
  ecs: 'ecs',
  elb: 'elasticloadbalancing',
  secrets: 'secretsmanager',
  rdsData: 'rds-data',
  logs: 'logs',
  cloudwatch: 'cloudwatch',
  acm: 'acm',
  route53: 'route53',
};

/** The IAM action an SDK command of a client is authorised as: `DescribeTasksCommand` on `ecs` is `ecs:DescribeTasks`. */
export const iamActionOf = (client: keyof EcsClients, command: string): string =>
  `${IAM_PREFIX[client]}:${command.replace(/Command$/, '')}`;

/** Sees each call the driver sends, as the IAM action it is authorised as, before it is sent. */
export type PlatformCallWatcher = (action: string, input: Record<string, unknown>) => void;

// Empty outside the tests: the middleware then only walks an empty list.
const watchers = new Set<PlatformCallWatcher>();

/** Adds a watcher of every call of the driver's clients, made before or after; returns its removal (tests only). */
export function watchPlatformCalls(watcher: PlatformCallWatcher): () => void {
  watchers.add(watcher);
  return () => watchers.delete(watcher);
}

function watch(name: keyof EcsClients, client: EcsClients[keyof EcsClients]): void {
  // The eight clients' stacks differ only in their command types, which the watcher does not read.
  (client as ECSClient).middlewareStack.add(
    (next, context) => async (args) => {
      for (const w of watchers) w(iamActionOf(name, String(context.commandName ?? '')), args.input as Record<string, unknown>);
      return next(args);
    },
    { step: 'initialize', name: 'platformCallWatchers' },
  );
}

export function ecsClients(region: string): EcsClients {
  // The workflow's own retries (ASL Retry, TransientPlatformError) back off for longer: the SDK tries twice.
  const options = { region, maxAttempts: 2 };
  const clients: EcsClients = {
    ecs: new ECSClient(options),
    elb: new ElasticLoadBalancingV2Client(options),
    secrets: new SecretsManagerClient(options),
    rdsData: new RDSDataClient(options),
    logs: new CloudWatchLogsClient(options),
    cloudwatch: new CloudWatchClient(options),
    acm: new ACMClient(options),
    // Route 53 is global: its one endpoint signs for us-east-1 whatever the platform's region.
    route53: new Route53Client({ ...options, region: 'us-east-1' }),
  };
  for (const name of Object.keys(clients) as (keyof EcsClients)[]) watch(name, clients[name]);
  return clients;
}
