/**
 * The task definitions of a deployment: its service's (the application's containers) and
 * its one-off tasks' (one `job` container), built from a configuration. Non-secret env
 * entries go in `environment` with their values; secret ones in `secrets`, each naming the
 * JSON key of the deployment's env secret at the version that holds it, so no secret value
 * is ever in a task definition (decision 52).
 */
import type { ContainerDefinition, RegisterTaskDefinitionCommandInput } from '@aws-sdk/client-ecs';
import type { AppType } from '../../../../contract/vocabulary.js';
import type { PlatformConfig } from '../../../core/platform.js';
import { taskSize } from '../../../core/platform-ecs.js';
import { dbName, deploymentTags, JOB_CONTAINER, JOB_STREAM_PREFIX, jobFamily, logGroupName, serviceFamily } from './names.js';
import type { EcsSettings } from './settings.js';

/** The containers each app runs, and the one the load balancer sends requests to (with its port). */
const CONTAINERS: Record<AppType, { names: readonly string[]; web: string; port: number }> = {
  airflow: { names: ['webserver', 'scheduler', 'dag-processor', 'triggerer'], web: 'webserver', port: 8080 },
  superset: { names: ['superset'], web: 'superset', port: 8088 },
};
/**
 * Each container's health check, which ECS runs in it and reports in DescribeTasks: the
 * driver's health (decision 48) reads it, as a function outside the VPC cannot reach the
 * application itself. Airflow's processes answer `airflow jobs check` for their own job.
 */
function healthCheckOf(app: AppType, container: string, version: string): ContainerDefinition['healthCheck'] {
  const timing = { interval: 30, timeout: 10, retries: 3, startPeriod: 120 };
  const check = (command: string) => ({ command: ['CMD-SHELL', command], ...timing });
  if (app === 'superset') return check('curl -fsS http://localhost:8088/health || exit 1');
  if (container === 'webserver')
    return check(`curl -fsS http://localhost:8080${Number(version.split('.')[0]) >= 3 ? '/api/v2/monitor/health' : '/health'} || exit 1`);
  const job = { scheduler: 'SchedulerJob', 'dag-processor': 'DagProcessorJob', triggerer: 'TriggererJob' }[container];
  return job ? check(`airflow jobs check --job-type ${job} --local`) : undefined;
}

export const webContainer = (app: AppType): { name: string; port: number } => ({ name: CONTAINERS[app].web, port: CONTAINERS[app].port });

/** The command of each Airflow container; Airflow 3 renamed its web server `api-server`. */
function commandOf(app: AppType, container: string, version: string): string[] | undefined {
  if (app === 'superset') return undefined;
  if (container === 'webserver') return [Number(version.split('.')[0]) >= 3 ? 'api-server' : 'webserver'];
  return [container];
}

export interface SecretRefs {
  /** The env secret's ARN and the version holding this configuration's values. */
  envSecretArn: string;
  envVersionId: string;
  /** The deployment's database credentials (`{username, password}`). */
  dbSecretArn: string;
  /** The secret a user-provisioning task reads its password from (`{password}`). */
  userSecretArn: string;
}

export interface TaskDefinitionInputs {
  service: RegisterTaskDefinitionCommandInput;
  job: RegisterTaskDefinitionCommandInput;
}

export function taskDefinitions(
  s: EcsSettings,
  target: { deploymentId: string; orgId: string; appType: AppType },
  config: PlatformConfig,
  refs: SecretRefs,
  operationId: string,
): TaskDefinitionInputs {
  const { cpu, memory } = taskSize(config.size);
  const app = target.appType;
  const entries = Object.entries(config.env).sort(([a], [b]) => a.localeCompare(b));
  const environment = [
    ...entries.filter(([, e]) => !e.secret).map(([name, e]) => ({ name, value: e.value })),
    { name: 'DEPLOYMENT_DB_NAME', value: dbName(target.deploymentId) },
    { name: 'DEPLOYMENT_DB_USER', value: dbName(target.deploymentId) },
  ];
  const secrets = [
    ...entries.filter(([, e]) => e.secret).map(([name]) => ({ name, valueFrom: `${refs.envSecretArn}:${name}::${refs.envVersionId}` })),
    { name: 'DEPLOYMENT_DB_PASSWORD', valueFrom: `${refs.dbSecretArn}:password::` },
  ];
  const image = `${s.images[app]}:${config.app_version}`;
  const logs = (prefix: string) => ({
    logDriver: 'awslogs' as const,
    options: {
      'awslogs-group': logGroupName(s.logGroupPrefix, target.deploymentId),
      'awslogs-region': s.region,
      'awslogs-stream-prefix': prefix,
    },
  });
  const { names, web, port } = CONTAINERS[app];
  // Every container reserves a share of the task's memory: Fargate needs only the task's,
  // the reservation is soft and costs nothing, and decision 272 says why it is there.
  const reservation = Math.floor(memory / (names.length + 1));
  const containers: ContainerDefinition[] = names.map((name) => ({
    name,
    image,
    essential: true,
    memoryReservation: reservation,
    environment,
    secrets,
    logConfiguration: logs('app'),
    healthCheck: healthCheckOf(app, name, config.app_version),
    ...(commandOf(app, name, config.app_version) ? { command: commandOf(app, name, config.app_version) } : {}),
    ...(name === web ? { portMappings: [{ containerPort: port, protocol: 'tcp' as const }] } : {}),
  }));
  const common = {
    requiresCompatibilities: ['FARGATE' as const],
    networkMode: 'awsvpc' as const,
    runtimePlatform: { cpuArchitecture: 'ARM64' as const, operatingSystemFamily: 'LINUX' as const },
    cpu: String(cpu),
    memory: String(memory),
    executionRoleArn: s.executionRoleArn,
    taskRoleArn: s.taskRoleArn,
    tags: [...deploymentTags(target.deploymentId, target.orgId), { key: 'operation', value: operationId }],
  };
  return {
    service: { ...common, family: serviceFamily(app, target.deploymentId), containerDefinitions: containers },
    job: {
      ...common,
      family: jobFamily(app, target.deploymentId),
      containerDefinitions: [
        {
          name: JOB_CONTAINER,
          image,
          essential: true,
          memoryReservation: reservation,
          environment,
          secrets: [...secrets, { name: 'NEW_USER_PASSWORD', valueFrom: `${refs.userSecretArn}:password::` }],
          logConfiguration: logs(JOB_STREAM_PREFIX),
        },
      ],
    },
  };
}
