/**
 * The ECS driver's AWS SDK v3 clients, made once per process in the settings' region. Each
 * reads its endpoint from AWS_ENDPOINT_URL_<SERVICE> (or AWS_ENDPOINT_URL) as every SDK v3
 * client does, which is how test/aws-api and `PLATFORM=ecs npm start` point them at moto.
 *
 * Every IAM action the driver's calls need (the platform stack grants exactly these; keep
 * the list in step with the calls):
 *   ecs:RegisterTaskDefinition ecs:DescribeTaskDefinition ecs:DeregisterTaskDefinition
 *   ecs:DeleteTaskDefinitions ecs:ListTaskDefinitions ecs:CreateService ecs:UpdateService
 *   ecs:DeleteService ecs:DescribeServices ecs:RunTask ecs:DescribeTasks ecs:StopTask
 *   ecs:ListTasks ecs:TagResource iam:PassRole (the task and execution roles)
 *   elasticloadbalancing:CreateTargetGroup elasticloadbalancing:DescribeTargetGroups
 *   elasticloadbalancing:DeleteTargetGroup elasticloadbalancing:CreateRule
 *   elasticloadbalancing:DescribeRules elasticloadbalancing:DeleteRule
 *   elasticloadbalancing:AddTags elasticloadbalancing:DescribeTargetHealth
 *   secretsmanager:CreateSecret secretsmanager:PutSecretValue secretsmanager:DescribeSecret
 *   secretsmanager:DeleteSecret secretsmanager:TagResource secretsmanager:GetSecretValue
 *     (the RDS Data API reads the secret it is given with the caller's rights)
 *   rds-data:ExecuteStatement
 *   logs:CreateLogGroup logs:PutRetentionPolicy logs:TagResource logs:GetLogEvents
 *   cloudwatch:GetMetricData
 *   acm:RequestCertificate acm:DescribeCertificate acm:ListCertificates acm:DeleteCertificate
 *   acm:AddTagsToCertificate elasticloadbalancing:AddListenerCertificates
 *   elasticloadbalancing:RemoveListenerCertificates route53:ChangeResourceRecordSets
 *   route53:ListResourceRecordSets
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

export function ecsClients(region: string): EcsClients {
  // The workflow's own retries (ASL Retry, TransientPlatformError) back off for longer: the SDK tries twice.
  const options = { region, maxAttempts: 2 };
  return {
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
}
