/**
 * The ECS platform (docs/platform.md, decisions 280-287): `-c platform=ecs` adds the platform stack and
 * wires the driver's functions to it; without it nothing changes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildApp } from '../../infra/aws/app.js';
import { functionActions, PLATFORM_ACTIONS, PLATFORM_USE, type PlatformUse } from '../../infra/aws/platform/driver-grants.js';
import { platformNames } from '../../infra/aws/platform/names.js';
import { PLATFORM_CONTEXT, type PlatformSynth, synthPlatform } from './platform-synth.js';
import {
  actionsOf,
  type CfnTemplate,
  flatten,
  logicalId,
  resourcesOf,
  resourcesOfType,
  type Statement,
  statementsOfRole,
} from './synth.js';

const names = platformNames('prod');
let prod: PlatformSynth;
let dev: PlatformSynth;
beforeAll(() => {
  prod = synthPlatform();
  dev = synthPlatform({ ...PLATFORM_CONTEXT, stage: 'dev', albShards: '2' });
}, 120_000);

const env = (s: PlatformSynth, fn: string): Record<string, unknown> =>
  s.apiJson.Resources[logicalId(s.stack.functions.get(fn as never).fn)]!.Properties?.Environment.Variables;
const statementsOf = (s: PlatformSynth, fn: string): Statement[] =>
  statementsOfRole(s.apiJson, logicalId(s.stack.functions.get(fn as never).fn.role!));
const conditionsOf = (st: Statement): Record<string, Record<string, unknown>> => (st as unknown as { Condition?: never }).Condition ?? {};

describe('without -c platform=ecs', () => {
  it('makes no platform stack and gives no function PLATFORM or PLATFORM_SETTINGS', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-default-'));
    try {
      const built = buildApp({ context: { stage: 'prod', 'aws:cdk:bundling-stacks': [] }, outdir, nag: false });
      built.app.synth();
      expect(built.platform).toBeUndefined();
      expect(fs.readdirSync(outdir).filter((f) => f.includes('Platform'))).toEqual([]);
      const json = JSON.parse(fs.readFileSync(path.join(outdir, built.stack.templateFile), 'utf8')) as CfnTemplate;
      expect(Object.keys(json.Parameters ?? {})).toEqual(['BootstrapVersion']);
      for (const [, fn] of resourcesOfType(json, 'AWS::Lambda::Function')) {
        expect(fn.Properties?.Environment?.Variables?.PLATFORM).toBeUndefined();
        expect(fn.Properties?.Environment?.Variables?.PLATFORM_SETTINGS).toBeUndefined();
      }
      expect(JSON.stringify(json)).not.toMatch(/ecs:|rds-data:|elasticloadbalancing:|Platform/);
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a platform it does not know, and platform=ecs without its domain and hosted zone', () => {
    const build = (context: Record<string, string>) => () =>
      buildApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, nag: false });
    expect(build({ platform: 'kubernetes' })).toThrow(/platform must be one of simulated, ecs/);
    expect(build({ platform: 'ecs', domain: 'apps.example.org' })).toThrow(/hostedZoneId/);
    expect(build({ platform: 'ecs', hostedZoneId: 'Z123' })).toThrow(/domain is required/);
    expect(build({ ...PLATFORM_CONTEXT, appDomain: 'other.example.org' })).toThrow(/must agree/);
    expect(build({ ...PLATFORM_CONTEXT, albShards: '0' })).toThrow(/albShards/);
  });
});

describe('the platform stack', () => {
  it('is DeploymentPlatform-<stage>, deployed before the API stack, which serves URLs under its domain', () => {
    expect(prod.platform.stackName).toBe('DeploymentPlatform-prod');
    expect(prod.stack.dependencies).toContain(prod.platform);
    expect(env(prod, 'get-deployment').APP_DOMAIN).toBe('apps.example.org');
  });

  it('has a VPC in 2 AZs with public, private and isolated subnets, NAT per AZ in prod and one in dev', () => {
    expect(resourcesOfType(prod.platformJson, 'AWS::EC2::Subnet')).toHaveLength(6);
    expect(resourcesOfType(prod.platformJson, 'AWS::EC2::NatGateway')).toHaveLength(2);
    expect(resourcesOfType(dev.platformJson, 'AWS::EC2::NatGateway')).toHaveLength(1);
    Template.fromJSON(prod.platformJson).hasResourceProperties('AWS::EC2::VPCEndpoint', { VpcEndpointType: 'Gateway' });
  });

  it('has the ECS cluster (Fargate providers, Container Insights off), and two immutable, scanned repositories', () => {
    const t = Template.fromJSON(prod.platformJson);
    t.hasResourceProperties('AWS::ECS::Cluster', {
      ClusterName: names.cluster,
      ClusterSettings: [{ Name: 'containerInsights', Value: 'disabled' }],
    });
    t.hasResourceProperties('AWS::ECS::ClusterCapacityProviderAssociations', { CapacityProviders: ['FARGATE', 'FARGATE_SPOT'] });
    for (const repo of Object.values(names.repositories))
      t.hasResourceProperties('AWS::ECR::Repository', {
        RepositoryName: repo,
        ImageTagMutability: 'IMMUTABLE',
        ImageScanningConfiguration: { ScanOnPush: true },
      });
  });

  it('has one ALB per shard with an HTTPS listener answering 404 by default, on a wildcard certificate validated in the zone', () => {
    const t = Template.fromJSON(dev.platformJson);
    expect(resourcesOfType(dev.platformJson, 'AWS::ElasticLoadBalancingV2::LoadBalancer').map(([, r]) => r.Properties?.Name)).toEqual([
      'deployments-dev-1',
      'deployments-dev-2',
    ]);
    const https = resourcesOfType(dev.platformJson, 'AWS::ElasticLoadBalancingV2::Listener').filter(([, r]) => r.Properties?.Port === 443);
    expect(https).toHaveLength(2);
    for (const [, l] of https) {
      expect(l.Properties?.Protocol).toBe('HTTPS');
      expect(l.Properties?.DefaultActions).toEqual([
        expect.objectContaining({ Type: 'fixed-response', FixedResponseConfig: expect.objectContaining({ StatusCode: '404' }) }),
      ]);
    }
    t.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: '*.apps.example.org',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: '*.apps.example.org', HostedZoneId: 'Z0123456789ABCDEFGHIJ' }],
    });
  });

  it('has an Aurora PostgreSQL Serverless v2 cluster with the Data API on, an admin secret, 0.5 ACU at least in prod and auto-pause in dev', () => {
    Template.fromJSON(prod.platformJson).hasResourceProperties('AWS::RDS::DBCluster', {
      DBClusterIdentifier: names.dbCluster,
      Engine: 'aurora-postgresql',
      EnableHttpEndpoint: true,
      StorageEncrypted: true,
      DeletionProtection: true,
      ServerlessV2ScalingConfiguration: { MinCapacity: 0.5, MaxCapacity: 16 },
    });
    Template.fromJSON(dev.platformJson).hasResourceProperties('AWS::RDS::DBCluster', {
      EnableHttpEndpoint: true,
      ServerlessV2ScalingConfiguration: Match.objectLike({ MinCapacity: 0, SecondsUntilAutoPause: 1800 }),
    });
    Template.fromJSON(prod.platformJson).hasResourceProperties('AWS::SecretsManager::Secret', { Name: names.dbAdminSecret });
    Template.fromJSON(prod.platformJson).hasResourceProperties('AWS::RDS::DBInstance', { DBInstanceClass: 'db.serverless' });
  });

  it('lets the ALB reach the tasks, and the tasks reach Aurora and EFS, and nothing else in', () => {
    const sg = (c: { node: { defaultChild?: unknown } }) => logicalId(c as never);
    const { alb, task, db, efs } = prod.platform.securityGroups;
    const ingress = resourcesOfType(prod.platformJson, 'AWS::EC2::SecurityGroupIngress').map(([, r]) => ({
      to: flatten(r.Properties?.GroupId),
      from: flatten(r.Properties?.SourceSecurityGroupId),
      port: r.Properties?.FromPort,
    }));
    expect(ingress).toEqual(
      expect.arrayContaining([
        { to: `<GetAtt:${sg(task)}.GroupId>`, from: `<GetAtt:${sg(alb)}.GroupId>`, port: 8080 },
        { to: `<GetAtt:${sg(task)}.GroupId>`, from: `<GetAtt:${sg(alb)}.GroupId>`, port: 8088 },
        { to: `<GetAtt:${sg(db)}.GroupId>`, from: `<GetAtt:${sg(task)}.GroupId>`, port: 5432 },
        { to: `<GetAtt:${sg(efs)}.GroupId>`, from: `<GetAtt:${sg(task)}.GroupId>`, port: 2049 },
      ]),
    );
    expect(ingress).toHaveLength(4);
    // Only the ALB's group takes the internet, on 443 and 80.
    const open = resourcesOfType(prod.platformJson, 'AWS::EC2::SecurityGroup').flatMap(([id, r]) =>
      ((r.Properties?.SecurityGroupIngress ?? []) as { CidrIp?: string; FromPort: number }[]).map((i) => `${id}:${i.CidrIp}:${i.FromPort}`),
    );
    expect(open.sort()).toEqual([`${sg(alb)}:0.0.0.0/0:443`, `${sg(alb)}:0.0.0.0/0:80`]);
    Template.fromJSON(prod.platformJson).hasResourceProperties('AWS::EFS::FileSystem', { Encrypted: true, ThroughputMode: 'elastic' });
  });

  it('makes the two task roles, the task role without any permission', () => {
    const t = Template.fromJSON(prod.platformJson);
    t.hasResourceProperties('AWS::IAM::Role', { RoleName: names.executionRole });
    t.hasResourceProperties('AWS::IAM::Role', { RoleName: names.taskRole });
    expect(statementsOfRole(prod.platformJson, logicalId(prod.platform.taskRole))).toEqual([]);
    const exec = statementsOfRole(prod.platformJson, logicalId(prod.platform.executionRole));
    expect(exec.flatMap(actionsOf)).toEqual(
      expect.arrayContaining(['secretsmanager:GetSecretValue', 'ecr:BatchGetImage', 'logs:PutLogEvents']),
    );
  });

  it("writes PLATFORM_SETTINGS with exactly the driver's keys to its SSM parameter", () => {
    const [, param] = resourcesOfType(prod.platformJson, 'AWS::SSM::Parameter').find(
      ([, r]) => r.Properties?.Name === names.settingsParameter,
    )!;
    expect(Object.keys(prod.platform.settingsJson).sort()).toEqual(
      [
        'region',
        'clusterArn',
        'subnetIds',
        'securityGroupIds',
        'listenerArns',
        'domain',
        'hostedZoneId',
        'dbClusterArn',
        'dbAdminSecretArn',
        'images',
        'executionRoleArn',
        'taskRoleArn',
        'logGroupPrefix',
        'fileSystemId',
      ].sort(),
    );
    const value = flatten(param.Properties?.Value);
    for (const key of Object.keys(prod.platform.settingsJson)) expect(value).toContain(`"${key}":`);
    expect(value).toContain('"domain":"apps.example.org"');
    expect(value).toContain(`"logGroupPrefix":"${names.logGroupPrefix}"`);
  });
});

describe("the driver's functions", () => {
  it('are exactly the ones PLATFORM_USE names, with PLATFORM=ecs and PLATFORM_SETTINGS from the SSM parameter', () => {
    const [settingsParam] = Object.entries(prod.apiJson.Parameters ?? {}).find(
      ([, p]) => (p as { Default?: string }).Default === names.settingsParameter,
    )!;
    for (const f of prod.stack.functions.all) {
      const e = env(prod, f.name);
      if (PLATFORM_USE[f.name]) {
        expect({ fn: f.name, platform: e.PLATFORM, settings: e.PLATFORM_SETTINGS }).toEqual({
          fn: f.name,
          platform: 'ecs',
          settings: { Ref: settingsParam },
        });
      } else {
        expect({ fn: f.name, platform: e.PLATFORM, settings: e.PLATFORM_SETTINGS }).toEqual({
          fn: f.name,
          platform: undefined,
          settings: undefined,
        });
      }
    }
  });

  it.each(Object.entries(PLATFORM_USE))('%s holds exactly the platform actions of its use', (fn, use) => {
    const platformActions = statementsOf(prod, fn)
      // The key-signing secret is the API's own grant (function-grants.ts), not the platform's.
      .filter((st) => !resourcesOf(st).map(flatten).join().includes('ApiKeySigningSecret'))
      .flatMap(actionsOf)
      .filter((a) => /^(ecs|elasticloadbalancing|secretsmanager|rds-data|logs|cloudwatch|acm|route53|elasticfilesystem|iam):/.test(a))
      .filter((a) => !['logs:CreateLogStream', 'logs:PutLogEvents'].includes(a) || functionActions(use as PlatformUse).includes(a));
    expect([...new Set(platformActions)].sort()).toEqual(functionActions(use as PlatformUse));
  });

  it('grant what the ECS driver calls, and cancel, restore and observe far less than drive', () => {
    expect(PLATFORM_ACTIONS.drive).toEqual(
      expect.arrayContaining([
        'ecs:RegisterTaskDefinition',
        'ecs:DeregisterTaskDefinition',
        'ecs:CreateService',
        'ecs:UpdateService',
        'ecs:DeleteService',
        'ecs:DescribeServices',
        'ecs:RunTask',
        'ecs:DescribeTasks',
        'ecs:TagResource',
        'elasticloadbalancing:CreateTargetGroup',
        'elasticloadbalancing:DeleteTargetGroup',
        'elasticloadbalancing:CreateRule',
        'elasticloadbalancing:DeleteRule',
        'elasticloadbalancing:DescribeRules',
        'elasticloadbalancing:DescribeTargetGroups',
        'elasticloadbalancing:AddTags',
        'secretsmanager:CreateSecret',
        'secretsmanager:PutSecretValue',
        'secretsmanager:DeleteSecret',
        'secretsmanager:TagResource',
        'secretsmanager:GetSecretValue',
        'rds-data:ExecuteStatement',
        'logs:GetLogEvents',
        'acm:RequestCertificate',
        'acm:DescribeCertificate',
        'acm:DeleteCertificate',
        'route53:ChangeResourceRecordSets',
        'iam:PassRole',
      ]),
    );
    // Least privilege: what only cancel (StopTask) or observe (health and metrics) calls is not drive's.
    for (const a of ['ecs:StopTask', 'ecs:ListTasks', 'elasticloadbalancing:DescribeTargetHealth', 'cloudwatch:GetMetricData'])
      expect(PLATFORM_ACTIONS.drive).not.toContain(a);
    expect(PLATFORM_ACTIONS.observe).toEqual(
      expect.arrayContaining([
        'ecs:DescribeServices',
        'ecs:DescribeTasks',
        'elasticloadbalancing:DescribeTargetHealth',
        'cloudwatch:GetMetricData',
      ]),
    );
    for (const use of ['cancel', 'restore', 'observe'] as const) {
      // Stopping a one-off task is cancel's alone: no phase of drive stops one.
      expect(PLATFORM_ACTIONS[use].every((a) => PLATFORM_ACTIONS.drive.includes(a) || use === 'observe' || a === 'ecs:StopTask')).toBe(
        true,
      );
      expect(PLATFORM_ACTIONS[use].length).toBeLessThan(10);
    }
    expect(PLATFORM_ACTIONS.cancel).not.toContain('ecs:DeleteService');
    expect(PLATFORM_ACTIONS.observe.some((a) => /:(Create|Delete|Update|Put|Run|Stop)/.test(a))).toBe(false);
  });

  it('are scoped: creates must tag, deletes and updates need the deployment tag, no action or service wildcard', () => {
    const statements = statementsOf(prod, 'start-phase');
    const platform = statements.filter((s) =>
      actionsOf(s).some((a) => /^(ecs|elasticloadbalancing|acm|elasticfilesystem|secretsmanager):/.test(a)),
    );
    for (const s of statements) for (const a of actionsOf(s)) expect(a).not.toMatch(/\*/);
    const withAction = (action: string) => platform.filter((s) => actionsOf(s).includes(action));
    for (const create of [
      'ecs:CreateService',
      'ecs:RunTask',
      'ecs:RegisterTaskDefinition',
      'elasticloadbalancing:CreateTargetGroup',
      'elasticloadbalancing:CreateRule',
      'acm:RequestCertificate',
      'secretsmanager:CreateSecret',
    ])
      expect({ create, conditions: withAction(create).map(conditionsOf) }).toEqual({
        create,
        conditions: [expect.objectContaining({ Null: { 'aws:RequestTag/deployment': 'false' } })],
      });
    for (const change of [
      'ecs:UpdateService',
      'ecs:DeleteService',
      'elasticloadbalancing:DeleteTargetGroup',
      'elasticloadbalancing:DeleteRule',
      'acm:DeleteCertificate',
      'secretsmanager:DeleteSecret',
      'secretsmanager:PutSecretValue',
    ])
      expect({ change, conditions: withAction(change).map(conditionsOf) }).toEqual({
        change,
        conditions: [expect.objectContaining({ Null: { 'aws:ResourceTag/deployment': 'false' } })],
      });
    // The ECS calls that name a cluster name the platform's.
    for (const a of ['ecs:CreateService', 'ecs:RunTask'])
      expect(flatten(withAction(a).map(conditionsOf)[0]?.ArnEquals?.['ecs:cluster'])).toContain(`:cluster/${names.cluster}`);
    // ListTasks is the health check's (observe): it too names the platform's cluster.
    const listTasks = statementsOf(prod, 'check-health').filter((s) => actionsOf(s).includes('ecs:ListTasks'));
    expect(flatten(listTasks.map(conditionsOf)[0]?.ArnEquals?.['ecs:cluster'])).toContain(`:cluster/${names.cluster}`);
  });

  it('pass exactly the two task roles, to ECS tasks only; run SQL on the one cluster; change records in the one zone under the domain', () => {
    const statements = statementsOf(prod, 'check-phase');
    const pass = statements.filter((s) => actionsOf(s).includes('iam:PassRole'));
    expect(pass).toHaveLength(1);
    expect(
      resourcesOf(pass[0]!)
        .map(flatten)
        .map((r) => r.replace(/^.*:role\//, '')),
    ).toEqual([names.executionRole, names.taskRole]);
    expect(conditionsOf(pass[0]!)).toEqual({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
    const sql = statements.find((s) => actionsOf(s).includes('rds-data:ExecuteStatement'))!;
    expect(resourcesOf(sql).map(flatten)).toEqual([
      expect.stringMatching(new RegExp(`:rds:<Ref:AWS::Region>:<Ref:AWS::AccountId>:cluster:${names.dbCluster}$`)),
    ]);
    const dns = statements.find((s) => actionsOf(s).includes('route53:ChangeResourceRecordSets'))!;
    expect(resourcesOf(dns).map(flatten)).toEqual([expect.stringMatching(/:route53:::hostedzone\/Z0123456789ABCDEFGHIJ$/)]);
    expect(conditionsOf(dns)).toEqual({
      'ForAllValues:StringLike': { 'route53:ChangeResourceRecordSetsNormalizedRecordNames': ['*.apps.example.org'] },
    });
    const admin = statements
      .filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'))
      .flatMap(resourcesOf)
      .map(flatten);
    expect(admin).toEqual(expect.arrayContaining([expect.stringMatching(/:secret:DeploymentPlatform-prod\/db-admin-\?\?\?\?\?\?$/)]));
  });
});

describe('the platform alarms', () => {
  it('feed ServiceDegraded: ALB 5xx and unhealthy targets per shard, Aurora capacity, task placement failures', () => {
    const alarms = (s: PlatformSynth) =>
      resourcesOfType(s.nestedJson, 'AWS::CloudWatch::Alarm')
        .map(([, r]) => flatten(r.Properties?.AlarmName))
        .filter((n) => n.includes('-Platform'))
        .map((n) => n.replace(/^.*-Platform/, 'Platform'));
    expect(alarms(dev).sort()).toEqual(
      [
        'PlatformDatabaseCapacity',
        'PlatformShard1LoadBalancer5xx',
        'PlatformShard1UnhealthyTargets',
        'PlatformShard2LoadBalancer5xx',
        'PlatformShard2UnhealthyTargets',
        'PlatformTaskPlacementFailures',
      ].sort(),
    );
    const [, degraded] = resourcesOfType(prod.nestedJson, 'AWS::CloudWatch::CompositeAlarm').find(([, r]) =>
      flatten(r.Properties?.AlarmName).endsWith('ServiceDegraded'),
    )!;
    const rule = flatten(degraded.Properties?.AlarmRule);
    for (const a of ['PlatformDatabaseCapacity', 'PlatformShard1UnhealthyTargets', 'PlatformTaskPlacementFailures'])
      expect(rule).toContain(a);
    Template.fromJSON(prod.nestedJson).hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/RDS',
      MetricName: 'ACUUtilization',
      Dimensions: [{ Name: 'DBClusterIdentifier', Value: names.dbCluster }],
    });
  });
});
