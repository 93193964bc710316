/**
 * The platform stack's names, derived from the stage only, so that both stacks can spell
 * them without a cross-stack reference: the platform stack gives its resources these names,
 * and the API stack scopes the driver's grants (driver-grants.ts) and its alarms to them.
 * What AWS names at random (subnets, listeners, the admin secret's suffix) reaches the API
 * stack through the SSM parameter `settingsParameter` instead.
 */
import type { StageName } from '../settings.js';

/** Everything the driver makes for a deployment carries this tag, `deployment=<id>` (docs/platform.md). */
export const DEPLOYMENT_TAG = 'deployment';

/** Secrets the driver makes for a deployment: `deployments/<id>/…` (the execution role reads them for ECS). */
export const DEPLOYMENT_SECRET_PREFIX = 'deployments/';

export interface PlatformNames {
  readonly stackName: string;
  /** The ECS cluster. */
  readonly cluster: string;
  /** ALB shard n (1-based): at most 32 characters. */
  readonly loadBalancer: (shard: number) => string;
  /** The Aurora cluster's identifier. */
  readonly dbCluster: string;
  /** The admin secret's name (its ARN ends in `-` and 6 random characters). */
  readonly dbAdminSecret: string;
  readonly executionRole: string;
  readonly taskRole: string;
  /** ECR repositories of the derived images (platform/images/). */
  readonly repositories: { readonly airflow: string; readonly superset: string };
  /** Each deployment's log group is `<prefix><id>` (PLATFORM_SETTINGS.logGroupPrefix). */
  readonly logGroupPrefix: string;
  /** The EventBridge rule that records ECS's task placement failures (an alarm counts its matches). */
  readonly placementFailureRule: string;
  /** SSM parameters the API stack reads at deploy time. */
  readonly settingsParameter: string;
  readonly loadBalancerParameter: (shard: number) => string;
}

export function platformNames(stage: StageName): PlatformNames {
  const stackName = `DeploymentPlatform-${stage}`;
  return {
    stackName,
    cluster: stackName,
    loadBalancer: (shard) => `deployments-${stage}-${shard}`,
    dbCluster: `deployment-platform-${stage}`,
    dbAdminSecret: `${stackName}/db-admin`,
    executionRole: `${stackName}-task-execution`,
    taskRole: `${stackName}-task`,
    repositories: { airflow: `deployment-platform-${stage}/airflow`, superset: `deployment-platform-${stage}/superset` },
    logGroupPrefix: `/deployments/${stage}/`,
    placementFailureRule: `${stackName}-task-placement-failures`,
    settingsParameter: `/${stackName}/settings`,
    loadBalancerParameter: (shard) => `/${stackName}/load-balancer-${shard}`,
  };
}
