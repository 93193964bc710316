/**
 * What the ECS driver (functions/adapters/platform/ecs/) may do on AWS, declared once: each
 * statement below names its actions, the resources they reach and the conditions that hold
 * them to what the driver made (the `deployment` tag every such resource carries), and which uses of the
 * driver need it. FunctionFactory gives a function these statements when PLATFORM_USE names
 * it and the stage runs `platform=ecs`; the driver's list of SDK calls is checked against
 * PLATFORM_ACTIONS (test/aws-api's grant check), so a call without a grant fails here, not
 * in AWS.
 *
 * Resources are spelt from the platform's deterministic names (names.ts), never from a
 * reference to the platform stack, so that neither stack locks the other.
 */
import { ArnFormat, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { FunctionName } from '../function-access.js';
import { iam5ResourceFinding } from '../nag.js';
import { DEPLOYMENT_SECRET_PREFIX, DEPLOYMENT_TAG, type PlatformNames } from './names.js';

/**
 * How a function uses the driver: `drive` runs phases (start, check); `cancel` stops a
 * phase's work (cancel, destroy, the reconciler); `restore` puts back an update's previous
 * configuration (complete, fail); `observe` reads health and metrics.
 */
export type PlatformUse = 'drive' | 'cancel' | 'restore' | 'observe';

/** The functions that call the driver (hostingPlatform()): they get PLATFORM, PLATFORM_SETTINGS and the grants of their use (USES_MADE). */
export const PLATFORM_USE: Readonly<Partial<Record<FunctionName, PlatformUse>>> = {
  'start-phase': 'drive',
  'check-phase': 'drive',
  'complete-operation': 'restore',
  'fail-operation': 'restore',
  'cancel-operation': 'cancel',
  'dashboard-cancel-operation': 'cancel',
  'delete-deployment': 'cancel',
  'dashboard-destroy-deployment': 'cancel',
  'reconcile-operations': 'cancel',
  'check-health': 'observe',
  'get-deployment-monitoring': 'observe',
  // Once the dashboard's charts are merged, its deployment read carries the health and metrics too.
  'dashboard-get-deployment': 'observe',
};

/** What the statements are scoped to, besides the names. */
export interface DriverTargets {
  readonly names: PlatformNames;
  readonly albShards: number;
  readonly hostedZoneId: string;
  readonly domain: string;
}

interface DriverGrant {
  readonly uses: readonly PlatformUse[];
  readonly actions: readonly string[];
  /** ARNs, or `*` where the action takes no resource-level permission. */
  readonly resources: (arn: Arn, t: DriverTargets) => string[];
  readonly conditions?: (arn: Arn, t: DriverTargets) => Record<string, Record<string, unknown>>;
  /** Why a resource with a wildcard is as narrow as IAM allows (cdk-nag AwsSolutions-IAM5); every wildcard needs one. */
  readonly why?: string;
}

type Arn = (service: string, resource: string, opts?: { region?: string; account?: string }) => string;

const ALL: readonly PlatformUse[] = ['drive'];
const tagged = { Null: { [`aws:ResourceTag/${DEPLOYMENT_TAG}`]: 'false' } };
const tagging = { Null: { [`aws:RequestTag/${DEPLOYMENT_TAG}`]: 'false' } };
const shards = (t: DriverTargets) => Array.from({ length: t.albShards }, (_, i) => t.names.loadBalancer(i + 1));
const clusterCondition = (arn: Arn, t: DriverTargets) => ({ ArnEquals: { 'ecs:cluster': arn('ecs', `cluster/${t.names.cluster}`) } });

const GRANTS: readonly DriverGrant[] = [
  // ---- ECS
  {
    uses: ALL,
    actions: ['ecs:RegisterTaskDefinition'],
    resources: () => ['*'],
    conditions: () => tagging,
    why: 'RegisterTaskDefinition takes no resource-level permission; the request must tag the revision with its deployment.',
  },
  {
    uses: ALL,
    actions: ['ecs:DescribeTaskDefinition', 'ecs:DeregisterTaskDefinition', 'ecs:ListTaskDefinitions', 'ecs:DeleteTaskDefinitions'],
    resources: () => ['*'],
    why: 'Task definitions take no resource-level permission for these reads, deregistrations and deletions.',
  },
  {
    uses: ALL,
    actions: ['ecs:CreateService'],
    resources: (arn, t) => [arn('ecs', `service/${t.names.cluster}/*`)],
    conditions: (arn, t) => ({ ...clusterCondition(arn, t), ...tagging }),
    why: "Services are named after deployments, made at run time; only in the platform's cluster, tagged with their deployment.",
  },
  {
    uses: ['drive', 'cancel', 'restore'],
    actions: ['ecs:UpdateService'],
    resources: (arn, t) => [arn('ecs', `service/${t.names.cluster}/*`)],
    conditions: () => tagged,
    why: "Only services of the platform's cluster that carry a deployment tag.",
  },
  {
    uses: ALL,
    actions: ['ecs:DeleteService'],
    resources: (arn, t) => [arn('ecs', `service/${t.names.cluster}/*`)],
    conditions: () => tagged,
    why: "Only services of the platform's cluster that carry a deployment tag.",
  },
  {
    uses: ['drive', 'observe'],
    actions: ['ecs:DescribeServices'],
    resources: (arn, t) => [arn('ecs', `service/${t.names.cluster}/*`)],
    why: "Reads of the platform cluster's services (a missing one must be answered MISSING, so no tag condition).",
  },
  {
    uses: ALL,
    actions: ['ecs:RunTask'],
    resources: (arn) => [arn('ecs', 'task-definition/*')],
    conditions: (arn, t) => ({ ...clusterCondition(arn, t), ...tagging }),
    why: "One-off tasks of the deployments' task definitions (families named at run time), only in the platform's cluster, tagged.",
  },
  {
    uses: ['cancel'],
    actions: ['ecs:StopTask'],
    resources: (arn, t) => [arn('ecs', `task/${t.names.cluster}/*`)],
    why: "Tasks have ids made by ECS; only the platform cluster's.",
  },
  {
    uses: ['drive', 'observe'],
    actions: ['ecs:DescribeTasks'],
    resources: (arn, t) => [arn('ecs', `task/${t.names.cluster}/*`)],
    why: "Tasks have ids made by ECS; only the platform cluster's.",
  },
  {
    uses: ['observe'],
    actions: ['ecs:ListTasks'],
    resources: () => ['*'],
    conditions: clusterCondition,
    why: 'ListTasks is authorised on the cluster named in the request: the platform cluster only (ecs:cluster).',
  },
  {
    uses: ALL,
    actions: ['ecs:TagResource'],
    resources: (arn, t) => [
      arn('ecs', `service/${t.names.cluster}/*`),
      arn('ecs', `task/${t.names.cluster}/*`),
      arn('ecs', 'task-definition/*'),
    ],
    conditions: () => ({ StringEquals: { 'ecs:CreateAction': ['CreateService', 'RunTask', 'RegisterTaskDefinition'] } }),
    why: 'Tags only as part of the create that makes the resource (ecs:CreateAction).',
  },
  // ---- Load balancing
  {
    uses: ALL,
    actions: ['elasticloadbalancing:CreateTargetGroup'],
    resources: (arn) => [arn('elasticloadbalancing', 'targetgroup/*')],
    conditions: () => tagging,
    why: 'Target groups are named after deployments at run time; the request must tag them.',
  },
  {
    uses: ALL,
    actions: ['elasticloadbalancing:CreateRule'],
    resources: (arn, t) =>
      shards(t).flatMap((lb) => [
        arn('elasticloadbalancing', `listener/app/${lb}/*`),
        arn('elasticloadbalancing', `listener-rule/app/${lb}/*`),
      ]),
    conditions: () => tagging,
    why: "Rules on the platform's shards' listeners (ids made by AWS), tagged with their deployment.",
  },
  {
    uses: ALL,
    actions: ['elasticloadbalancing:DeleteTargetGroup'],
    resources: (arn) => [arn('elasticloadbalancing', 'targetgroup/*')],
    conditions: () => tagged,
    why: 'Only target groups that carry a deployment tag.',
  },
  {
    uses: ALL,
    actions: ['elasticloadbalancing:DeleteRule'],
    resources: (arn, t) => shards(t).map((lb) => arn('elasticloadbalancing', `listener-rule/app/${lb}/*`)),
    conditions: () => tagged,
    why: "Only rules of the platform's shards that carry a deployment tag.",
  },
  {
    uses: ALL,
    actions: ['elasticloadbalancing:AddTags'],
    resources: (arn, t) => [
      arn('elasticloadbalancing', 'targetgroup/*'),
      ...shards(t).map((lb) => arn('elasticloadbalancing', `listener-rule/app/${lb}/*`)),
    ],
    conditions: () => ({ StringEquals: { 'elasticloadbalancing:CreateAction': ['CreateTargetGroup', 'CreateRule'] } }),
    why: 'Tags only as part of the create that makes the target group or rule.',
  },
  {
    uses: ALL,
    actions: ['elasticloadbalancing:AddListenerCertificates', 'elasticloadbalancing:RemoveListenerCertificates'],
    resources: (arn, t) => shards(t).map((lb) => arn('elasticloadbalancing', `listener/app/${lb}/*`)),
    why: "Each deployment's certificate on its shard's HTTPS listener (decision 281); listener ids are AWS's.",
  },
  {
    uses: ALL,
    actions: [
      'elasticloadbalancing:DescribeLoadBalancers',
      'elasticloadbalancing:DescribeListeners',
      'elasticloadbalancing:DescribeRules',
      'elasticloadbalancing:DescribeTargetGroups',
    ],
    resources: () => ['*'],
    why: 'The Describe actions of Elastic Load Balancing take no resource-level permission.',
  },
  {
    uses: ['observe'],
    actions: ['elasticloadbalancing:DescribeTargetGroups', 'elasticloadbalancing:DescribeTargetHealth'],
    resources: () => ['*'],
    why: 'The Describe actions of Elastic Load Balancing take no resource-level permission.',
  },
  // ---- Secrets
  {
    uses: ALL,
    actions: ['secretsmanager:CreateSecret', 'secretsmanager:TagResource'],
    resources: (arn) => [arn('secretsmanager', `secret:${DEPLOYMENT_SECRET_PREFIX}*`)],
    conditions: () => tagging,
    why: "The deployments' secrets are `deployments/<id>/…`, ids known at run time; the request must tag them.",
  },
  {
    uses: ALL,
    actions: [
      'secretsmanager:PutSecretValue',
      'secretsmanager:DeleteSecret',
      'secretsmanager:DescribeSecret',
      'secretsmanager:GetSecretValue',
    ],
    resources: (arn) => [arn('secretsmanager', `secret:${DEPLOYMENT_SECRET_PREFIX}*`)],
    conditions: () => tagged,
    why: "The deployments' own secrets (GetSecretValue: the Data API logs in with a deployment's own secret to prove its role works).",
  },

  {
    uses: ['drive', 'observe'],
    actions: ['secretsmanager:GetSecretValue'],
    resources: (arn, t) => [arn('secretsmanager', `secret:${t.names.dbAdminSecret}-??????`)],
    why: "The database admin secret: its name is fixed, Secrets Manager appends 6 random characters (the health check queries the deployment's database with it).",
  },
  // ---- Database, logs, metrics
  {
    uses: ['drive', 'observe'],
    actions: ['rds-data:ExecuteStatement'],
    resources: (arn, t) => [arn('rds', `cluster:${t.names.dbCluster}`)],
  },
  {
    uses: ALL,
    actions: ['logs:CreateLogGroup', 'logs:PutRetentionPolicy', 'logs:TagResource', 'logs:GetLogEvents'],
    resources: (arn, t) => [arn('logs', `log-group:${t.names.logGroupPrefix}*`)],
    why: "Each deployment's log group is `<prefix><id>`; its streams are named by the awslogs driver.",
  },
  {
    uses: ['observe'],
    actions: ['cloudwatch:GetMetricData'],
    resources: () => ['*'],
    why: 'GetMetricData takes no resource-level permission.',
  },
  // ---- Certificates and DNS (decision 281)
  {
    uses: ALL,
    actions: ['acm:RequestCertificate'],
    resources: () => ['*'],
    conditions: () => tagging,
    why: 'RequestCertificate takes no resource-level permission; the request must tag the certificate.',
  },
  {
    uses: ALL,
    actions: ['acm:ListCertificates'],
    resources: () => ['*'],
    why: 'ListCertificates takes no resource-level permission (the driver finds its certificate again by domain).',
  },
  {
    uses: ALL,
    actions: ['acm:AddTagsToCertificate', 'acm:DescribeCertificate'],
    resources: (arn) => [arn('acm', 'certificate/*')],
    why: 'Certificate ids are made by ACM (tagging is part of RequestCertificate).',
  },
  {
    uses: ALL,
    actions: ['acm:DeleteCertificate'],
    resources: (arn) => [arn('acm', 'certificate/*')],
    conditions: () => tagged,
    why: 'Only certificates that carry a deployment tag.',
  },
  {
    uses: ALL,
    actions: ['route53:ChangeResourceRecordSets'],
    resources: (arn, t) => [arn('route53', `hostedzone/${t.hostedZoneId}`, { region: '', account: '' })],
    conditions: (_arn, t) => ({
      'ForAllValues:StringLike': { 'route53:ChangeResourceRecordSetsNormalizedRecordNames': [`*.${t.domain}`] },
    }),
  },
  {
    uses: ALL,
    actions: ['route53:ListResourceRecordSets'],
    resources: (arn, t) => [arn('route53', `hostedzone/${t.hostedZoneId}`, { region: '', account: '' })],
  },
  // ---- The two task roles, and nothing else, handed to ECS
  {
    uses: ALL,
    actions: ['iam:PassRole'],
    resources: (arn, t) => [
      arn('iam', `role/${t.names.executionRole}`, { region: '' }),
      arn('iam', `role/${t.names.taskRole}`, { region: '' }),
    ],
    conditions: () => ({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } }),
  },
];

/** Every IAM action a use of the driver is granted: what the driver's SDK calls are checked against. */
export const PLATFORM_ACTIONS: Readonly<Record<PlatformUse, readonly string[]>> = Object.fromEntries(
  (['drive', 'cancel', 'restore', 'observe'] as const).map((use) => [
    use,
    [...new Set(GRANTS.filter((g) => g.uses.includes(use)).flatMap((g) => g.actions))].sort(),
  ]),
) as unknown as Record<PlatformUse, readonly string[]>;

/**
 * The driver's uses a function of each use makes: a function that drives phases also
 * cancels the job its start made for an operation that ended meanwhile (decision 331).
 */
export const USES_MADE: Readonly<Record<PlatformUse, readonly PlatformUse[]>> = {
  drive: ['drive', 'cancel'],
  cancel: ['cancel'],
  restore: ['restore'],
  observe: ['observe'],
};

/** Every IAM action a function of `use` holds: those of each use it makes. */
export const functionActions = (use: PlatformUse): string[] => [...new Set(USES_MADE[use].flatMap((u) => PLATFORM_ACTIONS[u]))].sort();

/** Adds the statements of `use` to the function's role, each wildcard acknowledged with its reason. */
export function grantDriver(role: iam.IRole, use: PlatformUse, targets: DriverTargets): void {
  const stack = Stack.of(role);
  const arn: Arn = (service, resource, opts = {}) =>
    stack.formatArn({
      service,
      resource,
      region: opts.region,
      account: opts.account,
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
  for (const g of GRANTS.filter((g) => g.uses.some((u) => USES_MADE[use].includes(u)))) {
    const resources = g.resources(arn, targets);
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...g.actions], resources, conditions: g.conditions?.(arn, targets) }));
    for (const r of resources.filter((r) => r.includes('*') || r.includes('?'))) {
      if (!g.why) throw new Error(`the grant of ${g.actions.join(', ')} has a wildcard resource and no reason for it`);
      Validations.of(role).acknowledge({ id: iam5ResourceFinding(role, r), reason: g.why });
    }
  }
}
