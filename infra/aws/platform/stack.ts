/**
 * `DeploymentPlatform-<stage>`: what every deployment on the ECS platform shares (docs/platform.md,
 * decisions 280-287), synthesized only with `-c platform=ecs` and offline (no lookups): the network,
 * the ECS cluster, the image repositories, the load balancer shards with their HTTPS
 * listeners, the Aurora cluster the driver reaches through the Data API, the EFS file system
 * for DAGs, the security groups between them, and the two roles ECS runs the tasks with.
 * What the driver makes per deployment (services, target groups, rules, certificates,
 * secrets, databases) is not here: it is made at run time and tagged `deployment=<id>`.
 *
 * The API stack reads this one's settings from one SSM parameter at deploy time, not from
 * CloudFormation exports, so that neither stack locks the other's updates; it spells the
 * rest from names.ts.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Tags, Token, Validations } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as rds from 'aws-cdk-lib/aws-rds';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { LOG_GROUP_KMS } from '../nag.js';
import { DEPLOYMENT_SECRET_PREFIX, type PlatformNames, platformNames } from './names.js';
import type { PlatformSettings } from './settings.js';

/** The ports the applications listen on: Airflow's api-server/webserver, Superset's gunicorn. */
export const APP_PORTS = { airflow: 8080, superset: 8088 } as const;
/** Aurora PostgreSQL's engine: 16.x supports Serverless v2 auto-pause (min 0 ACU) and the Data API. */
export const DB_ENGINE_VERSION = rds.AuroraPostgresEngineVersion.VER_16_9;

export interface DeploymentPlatformStackProps extends StackProps {
  readonly platform: PlatformSettings;
}

/** The JSON of PLATFORM_SETTINGS (the ECS driver's settings module reads these keys). */
export interface PlatformSettingsJson {
  readonly region: string;
  readonly clusterArn: string;
  readonly subnetIds: string[];
  readonly securityGroupIds: string[];
  readonly listenerArns: string[];
  readonly domain: string;
  readonly hostedZoneId: string;
  readonly dbClusterArn: string;
  readonly dbAdminSecretArn: string;
  readonly images: { readonly airflow: string; readonly superset: string };
  readonly executionRoleArn: string;
  readonly taskRoleArn: string;
  readonly logGroupPrefix: string;
  readonly fileSystemId: string;
}

export class DeploymentPlatformStack extends Stack {
  readonly names: PlatformNames;
  readonly vpc: ec2.Vpc;
  readonly cluster: ecs.Cluster;
  readonly repositories: { readonly airflow: ecr.Repository; readonly superset: ecr.Repository };
  readonly loadBalancers: elbv2.ApplicationLoadBalancer[] = [];
  readonly listeners: elbv2.ApplicationListener[] = [];
  readonly database: rds.DatabaseCluster;
  readonly fileSystem: efs.FileSystem;
  readonly securityGroups: {
    readonly alb: ec2.SecurityGroup;
    readonly task: ec2.SecurityGroup;
    readonly db: ec2.SecurityGroup;
    readonly efs: ec2.SecurityGroup;
  };
  readonly executionRole: iam.Role;
  readonly taskRole: iam.Role;
  readonly settingsJson: PlatformSettingsJson;

  constructor(scope: Construct, id: string, props: DeploymentPlatformStackProps) {
    super(scope, id, props);
    const p = props.platform;
    const names = platformNames(p.stage);
    this.names = names;
    // CloudFormation takes no Tags on a listener (cfn-lint E3002).
    const untaggable = { excludeResourceTypes: ['AWS::ElasticLoadBalancingV2::Listener'] };
    Tags.of(this).add('service', 'deployment-management-api', untaggable);
    Tags.of(this).add('stage', p.stage, untaggable);
    // Prod keeps its logs a year (Control Tower CT.CLOUDWATCH.PR.2), dev a month.
    const logRetention = p.retainData ? logs.RetentionDays.ONE_YEAR : logs.RetentionDays.ONE_MONTH;
    const dataPolicy = p.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    // ---- Network (decision 280): public subnets for the ALBs and NAT, private ones with egress for
    // the tasks and EFS, isolated ones for Aurora. The S3 gateway endpoint is free and carries ECR's
    // image layers, which would otherwise be NAT traffic.
    const flowLogs = new logs.LogGroup(this, 'FlowLogs', { retention: logRetention, removalPolicy: RemovalPolicy.DESTROY });
    Validations.of(flowLogs).acknowledge(LOG_GROUP_KMS);
    this.vpc = new ec2.Vpc(this, 'Network', {
      maxAzs: 2,
      natGateways: p.natGateways,
      subnetConfiguration: [
        // Nothing launched there needs an address of its own: the ALBs and NAT gateways bring theirs.
        { name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24, mapPublicIpOnLaunch: false },
        { name: 'tasks', subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS, cidrMask: 20 },
        { name: 'data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED, cidrMask: 24 },
      ],
      gatewayEndpoints: { s3: { service: ec2.GatewayVpcEndpointAwsService.S3 } },
      flowLogs: {
        rejected: { trafficType: ec2.FlowLogTrafficType.REJECT, destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs) },
      },
    });
    const taskSubnets = this.vpc.selectSubnets({ subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS });

    // ---- Security groups: the ALB takes the internet on 443 (80 only redirects), the tasks take
    // only the ALB, Aurora and EFS take only the tasks.
    const sg = (sgId: string, description: string, allowAllOutbound: boolean) =>
      new ec2.SecurityGroup(this, sgId, { vpc: this.vpc, description, allowAllOutbound });
    const alb = sg('LoadBalancerSecurityGroup', 'Deployment platform: the ALB shards (HTTPS from the internet)', false);
    // The tasks pull images, read secrets and run customers' DAGs, which reach the internet (decision 280).
    const task = sg('TaskSecurityGroup', 'Deployment platform: the deployment tasks (from the ALB only)', true);
    const db = sg('DatabaseSecurityGroup', 'Deployment platform: Aurora (PostgreSQL from the tasks only)', false);
    const fs = sg('FileSystemSecurityGroup', 'Deployment platform: EFS for DAGs (NFS from the tasks only)', false);
    alb.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS from anywhere');
    alb.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(80), 'HTTP from anywhere, redirected to HTTPS');
    for (const [app, port] of Object.entries(APP_PORTS)) {
      alb.addEgressRule(task, ec2.Port.tcp(port), `To ${app} tasks`);
      task.addIngressRule(alb, ec2.Port.tcp(port), `${app} from the ALB`);
    }
    db.addIngressRule(task, ec2.Port.tcp(5432), 'PostgreSQL from the tasks');
    fs.addIngressRule(task, ec2.Port.tcp(2049), 'NFS from the tasks');
    this.securityGroups = { alb, task, db, efs: fs };
    for (const group of [alb]) {
      Validations.of(group).acknowledge({
        id: 'AwsSolutions-EC23',
        reason: "The ALB shards serve the deployments' public URLs: HTTPS from anywhere, and HTTP only to redirect to it.",
      });
      Validations.of(group).acknowledge({
        id: 'cdk-validator-cfnguard::vpc_sg_open_only_to_authorized_ports_check',
        reason: "The ALB shards serve the deployments' public URLs: HTTPS from anywhere, and HTTP only to redirect to it.",
      });
    }

    // ---- ECS (decision 284: Container Insights off unless asked for).
    this.cluster = new ecs.Cluster(this, 'Cluster', {
      clusterName: names.cluster,
      vpc: this.vpc,
      enableFargateCapacityProviders: true,
      containerInsightsV2: p.containerInsights ? ecs.ContainerInsights.ENABLED : ecs.ContainerInsights.DISABLED,
    });
    if (!p.containerInsights)
      for (const id of ['AwsSolutions-ECS4', 'cdk-validator-cfnguard::ecs_container_insights_enabled_check'])
        Validations.of(this.cluster).acknowledge({
          id,
          reason:
            'Decision 284: Container Insights bills its metrics per task and service; the AWS/ECS service metrics (CPU, memory) the health and charts read are free. `-c containerInsights=true` turns it on.',
        });

    // ---- Repositories of the derived images (decision 285): one tag per supported app_version, never overwritten.
    const repository = (repoId: string, repositoryName: string) =>
      new ecr.Repository(this, repoId, {
        repositoryName,
        imageScanOnPush: true,
        imageTagMutability: ecr.TagMutability.IMMUTABLE,
        encryption: ecr.RepositoryEncryption.AES_256,
        removalPolicy: dataPolicy,
        emptyOnDelete: !p.retainData,
        lifecycleRules: [
          { description: 'Untagged layers of replaced builds', tagStatus: ecr.TagStatus.UNTAGGED, maxImageAge: Duration.days(14) },
        ],
      });
    this.repositories = {
      airflow: repository('AirflowImages', names.repositories.airflow),
      superset: repository('SupersetImages', names.repositories.superset),
    };

    // ---- TLS and DNS (decision 281): the listeners' default certificate is a wildcard of the domain;
    // each deployment's `*.<id>.<domain>` certificate is requested by the driver and added to its shard's listener.
    const zone = route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', { hostedZoneId: p.hostedZoneId, zoneName: p.domain });
    const certificate = new acm.Certificate(this, 'DefaultCertificate', {
      domainName: `*.${p.domain}`,
      validation: acm.CertificateValidation.fromDns(zone),
    });

    // ---- ALB shards (decision 282): each an internet-facing ALB with an HTTPS listener whose default
    // answers 404; the driver adds one host-header rule and target group per deployment.
    // ELB writes access logs as a regional account, so CDK needs the region: `cdk deploy` knows it (the
    // CLI sets CDK_DEFAULT_REGION); an offline synth without one leaves them off and says so.
    const regionKnown = !Token.isUnresolved(this.region);
    const accessLogs = regionKnown ? this.accessLogBucket() : undefined;
    for (let shard = 1; shard <= p.albShards; shard++) {
      const lb = new elbv2.ApplicationLoadBalancer(this, `LoadBalancer${shard}`, {
        loadBalancerName: names.loadBalancer(shard),
        vpc: this.vpc,
        internetFacing: true,
        securityGroup: alb,
        vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
        dropInvalidHeaderFields: true,
        idleTimeout: Duration.seconds(120),
      });
      if (accessLogs) lb.logAccessLogs(accessLogs, `shard-${shard}`);
      else
        for (const id of ['AwsSolutions-ELB2', 'cdk-validator-cfnguard::elbv2_logging_enabled_check'])
          Validations.of(lb).acknowledge({
            id,
            reason: 'Access logs need the region at synth: `cdk deploy` (which knows it) turns them on; this synth had none.',
          });
      const listener = lb.addListener('Https', {
        port: 443,
        protocol: elbv2.ApplicationProtocol.HTTPS,
        sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
        certificates: [certificate],
        defaultAction: elbv2.ListenerAction.fixedResponse(404, { contentType: 'text/plain', messageBody: 'No deployment here.' }),
      });
      lb.addRedirect({
        sourcePort: 80,
        sourceProtocol: elbv2.ApplicationProtocol.HTTP,
        targetPort: 443,
        targetProtocol: elbv2.ApplicationProtocol.HTTPS,
      });
      Validations.of(lb).acknowledge({
        id: 'cdk-validator-cfnguard::elbv2_deletion_protection_enabled_check',
        reason: 'A shard holds no data; the driver recreates its rules from the deployments, and prod keeps it with the stack.',
      });
      this.loadBalancers.push(lb);
      this.listeners.push(listener);
      new ssm.StringParameter(this, `LoadBalancer${shard}FullName`, {
        parameterName: names.loadBalancerParameter(shard),
        description: `ALB shard ${shard}'s metric dimension (app/<name>/<id>), for the API stack's alarms`,
        stringValue: lb.loadBalancerFullName,
      });
    }

    // ---- Aurora PostgreSQL Serverless v2 (decision 283): one writer, the Data API on, admin credentials
    // in Secrets Manager. The driver makes one role and database per deployment through the Data API.
    this.database = new rds.DatabaseCluster(this, 'Database', {
      clusterIdentifier: names.dbCluster,
      engine: rds.DatabaseClusterEngine.auroraPostgres({ version: DB_ENGINE_VERSION }),
      credentials: rds.Credentials.fromGeneratedSecret('platform_admin', { secretName: names.dbAdminSecret }),
      writer: rds.ClusterInstance.serverlessV2('writer', { autoMinorVersionUpgrade: true }),
      serverlessV2MinCapacity: p.dbMinCapacity,
      serverlessV2MaxCapacity: p.dbMaxCapacity,
      serverlessV2AutoPauseDuration: p.dbMinCapacity === 0 ? Duration.minutes(30) : undefined,
      enableDataApi: true,
      storageEncrypted: true,
      vpc: this.vpc,
      vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
      securityGroups: [db],
      backup: { retention: Duration.days(p.retainData ? 14 : 7) },
      deletionProtection: p.retainData,
      removalPolicy: p.retainData ? RemovalPolicy.SNAPSHOT : RemovalPolicy.DESTROY,
      cloudwatchLogsExports: ['postgresql'],
      copyTagsToSnapshot: true,
    });
    // The log group RDS exports to, made here with its retention rather than by CDK's LogRetention function.
    const dbLogs = new logs.LogGroup(this, 'DatabaseLogs', {
      logGroupName: `/aws/rds/cluster/${names.dbCluster}/postgresql`,
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(dbLogs).acknowledge(LOG_GROUP_KMS);
    this.database.node.addDependency(dbLogs);
    const dbAcks: Record<string, string> = {
      'AwsSolutions-RDS6':
        'The driver reaches the database through the Data API with Secrets Manager credentials; the deployments log in with their own role and password, which IAM authentication cannot hand to Airflow or Superset.',
      'AwsSolutions-RDS10': p.retainData ? '' : 'A dev stage is torn down with its database; prod has deletion protection.',
      'cdk-validator-cfnguard::rds_instance_enhanced_monitoring_enabled_check':
        "The alarms and health read the cluster's free AWS/RDS metrics (ACUUtilization, CPU, connections); enhanced monitoring's OS metrics are billed as log ingestion, for an operator to turn on while investigating.",
      'AwsSolutions-RDS11':
        'The port is reachable only from the task security group; a non-default port hides nothing from a task that may connect.',
      'AwsSolutions-SMG4':
        'Rotating the admin secret needs a rotation function inside the VPC; the admin password is used only by the driver through the Data API and can be rotated by an operator (docs/platform.md).',
      'cdk-validator-cfnguard::rds_cluster_iam_authentication_enabled_check':
        'The driver reaches the database through the Data API with Secrets Manager credentials; the deployments log in with their own role and password.',
      'cdk-validator-cfnguard::rds_cluster_deletion_protection_enabled_check': p.retainData
        ? ''
        : 'A dev stage is torn down with its database; prod has deletion protection.',
    };
    for (const [ackId, reason] of Object.entries(dbAcks)) if (reason) Validations.of(this.database).acknowledge({ id: ackId, reason });

    // ---- EFS for DAGs: one access point per deployment (made by the driver), mounted by its tasks.
    this.fileSystem = new efs.FileSystem(this, 'Dags', {
      vpc: this.vpc,
      vpcSubnets: taskSubnets,
      securityGroup: fs,
      encrypted: true,
      throughputMode: efs.ThroughputMode.ELASTIC,
      performanceMode: efs.PerformanceMode.GENERAL_PURPOSE,
      lifecyclePolicy: efs.LifecyclePolicy.AFTER_30_DAYS,
      enableAutomaticBackups: p.retainData,
      removalPolicy: dataPolicy,
    });

    // ---- The roles ECS runs the tasks with (the driver may pass exactly these two).
    this.executionRole = new iam.Role(this, 'TaskExecutionRole', {
      roleName: names.executionRole,
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: "Pulls the deployments' images, writes their logs and reads their secrets for ECS",
    });
    for (const repo of Object.values(this.repositories)) repo.grantPull(this.executionRole);
    this.executionRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.formatArn({ service: 'logs', resource: `log-group:${names.logGroupPrefix}*` })],
      }),
    );
    this.executionRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['secretsmanager:GetSecretValue'],
        resources: [this.formatArn({ service: 'secretsmanager', resource: `secret:${DEPLOYMENT_SECRET_PREFIX}*` })],
      }),
    );
    Validations.of(this.executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ecr:GetAuthorizationToken takes no resource-level permission (the pulls themselves are granted on the two repositories).',
    });
    Validations.of(this.executionRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:${names.logGroupPrefix}*]`,
      reason: "Each deployment's log group is `<prefix><id>`, made by the driver at run time; ECS writes the task streams there.",
    });
    Validations.of(this.executionRole).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${DEPLOYMENT_SECRET_PREFIX}*]`,
      reason:
        "ECS reads a task's `secrets` from the deployments' secrets (`deployments/<id>/…`, made at run time); only task definitions the driver registers name them.",
    });
    // Customer DAG code runs with this role's credentials: it holds nothing shared (the tasks mount EFS through their access point).
    this.taskRole = new iam.Role(this, 'TaskRole', {
      roleName: names.taskRole,
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
      description: "The deployments' tasks: no permissions, as customers' DAG code runs with it",
    });

    // ---- Task placement failures (capacity, quota): ECS reports them as events only; a rule keeps them
    // in a log group, and the API stack's alarm counts its matches.
    const placementLog = new logs.LogGroup(this, 'PlacementFailures', {
      retention: logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(placementLog).acknowledge(LOG_GROUP_KMS);
    const rule = new events.Rule(this, 'PlacementFailureRule', {
      ruleName: names.placementFailureRule,
      description: 'ECS could not place or start a deployment task (capacity, quota, image pull)',
      eventPattern: {
        source: ['aws.ecs'],
        detailType: ['ECS Service Action'],
        detail: { clusterArn: [this.cluster.clusterArn], eventName: ['SERVICE_TASK_PLACEMENT_FAILURE', 'SERVICE_TASK_START_IMPAIRED'] },
      },
    });
    // The rule writes to the log group under the group's resource policy, made natively (CDK's log-group
    // target would make it with a custom resource and its function).
    rule.addTarget({ bind: () => ({ arn: placementLog.logGroupArn }) });
    new logs.ResourcePolicy(this, 'PlacementFailuresPolicy', {
      policyStatements: [
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('events.amazonaws.com'), new iam.ServicePrincipal('delivery.logs.amazonaws.com')],
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: [`${placementLog.logGroupArn}`],
        }),
      ],
    });

    // ---- What the driver reads: PLATFORM_SETTINGS, one SSM parameter the API stack resolves at deploy time.
    const settingsJson: PlatformSettingsJson = {
      region: this.region,
      clusterArn: this.cluster.clusterArn,
      subnetIds: taskSubnets.subnetIds,
      securityGroupIds: [task.securityGroupId],
      listenerArns: this.listeners.map((l) => l.listenerArn),
      domain: p.domain,
      hostedZoneId: p.hostedZoneId,
      dbClusterArn: this.database.clusterArn,
      dbAdminSecretArn: this.database.secret!.secretArn,
      images: { airflow: this.repositories.airflow.repositoryUri, superset: this.repositories.superset.repositoryUri },
      executionRoleArn: this.executionRole.roleArn,
      taskRoleArn: this.taskRole.roleArn,
      logGroupPrefix: names.logGroupPrefix,
      fileSystemId: this.fileSystem.fileSystemId,
    };
    this.settingsJson = settingsJson;
    new ssm.StringParameter(this, 'DriverSettings', {
      parameterName: names.settingsParameter,
      description: 'PLATFORM_SETTINGS of the ECS driver (read by the API stack at deploy time)',
      stringValue: this.toJsonString(settingsJson),
    });

    new CfnOutput(this, 'AirflowRepositoryUri', {
      value: this.repositories.airflow.repositoryUri,
      description: 'Push the derived Airflow images here (platform/images/)',
    });
    new CfnOutput(this, 'SupersetRepositoryUri', {
      value: this.repositories.superset.repositoryUri,
      description: 'Push the derived Superset images here (platform/images/)',
    });
    new CfnOutput(this, 'SettingsParameter', {
      value: names.settingsParameter,
      description: 'PLATFORM_SETTINGS, as the API stack reads it',
    });
    this.loadBalancers.forEach((lb, i) => {
      new CfnOutput(this, `LoadBalancer${i + 1}DnsName`, { value: lb.loadBalancerDnsName, description: `ALB shard ${i + 1}` });
    });
  }

  /** The ALBs' access logs, kept 90 days. */
  private accessLogBucket(): s3.Bucket {
    const bucket = new s3.Bucket(this, 'LoadBalancerLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      versioned: false,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: "This bucket receives the ALBs' access logs; logging its own accesses would need another bucket and log nothing useful.",
    });
    for (const rule of ['s3_bucket_logging_enabled_check', 's3_bucket_versioning_enabled_check', 's3_bucket_object_lock_enabled_check'])
      Validations.of(bucket).acknowledge({
        id: `cdk-validator-cfnguard::${rule}`,
        reason:
          'Access logs expire after 90 days and are written once by the load balancers: no versions, replication, lock or access log of their own.',
      });
    return bucket;
  }
}
