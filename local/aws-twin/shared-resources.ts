/**
 * The shared platform resources in the twin's moto, made as the platform stack makes them
 * on AWS (infra's `-c platform=ecs` stack): a VPC with two private subnets and a security
 * group, the ECS cluster, a load balancer with its HTTPS listener (one shard), the hosted
 * zone, the Aurora PostgreSQL cluster and its admin secret, EFS for DAGs and the roles'
 * names; the driver's PLATFORM_SETTINGS come back, as the stack's outputs would.
 */
import { ACMClient, RequestCertificateCommand } from '@aws-sdk/client-acm';
import { CreateClusterCommand, ECSClient } from '@aws-sdk/client-ecs';
import { CreateListenerCommand, CreateLoadBalancerCommand, ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { CreateHostedZoneCommand, Route53Client } from '@aws-sdk/client-route-53';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { EcsSettings } from '../../functions/adapters/platform/ecs/settings.js';

export const TWIN_REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const credentials = { accessKeyId: 'twin', secretAccessKey: 'twin' };
/** The admin role of the twin's database cluster (data-api.ts runs its statements as the superuser). */
export const TWIN_DB_ADMIN = 'postgres';

/** A query-protocol call (EC2, RDS: no SDK client in this project), signed as moto needs: by name only. */
async function query(endpoint: string, service: string, params: Record<string, string>): Promise<string> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `AWS4-HMAC-SHA256 Credential=twin/20260101/${TWIN_REGION}/${service}/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams(params).toString(),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${service} ${params.Action} failed in the twin: ${text.slice(0, 500)}`);
  return text;
}
const xml = (text: string, tag: string): string => {
  const m = new RegExp(`<${tag}>([^<]+)</${tag}>`).exec(text);
  if (!m) throw new Error(`no <${tag}> in the twin's answer`);
  return m[1]!;
};

export async function createSharedResources(motoEndpoint: string, domain: string): Promise<EcsSettings> {
  const options = { endpoint: motoEndpoint, region: TWIN_REGION, credentials };
  const ec2 = (p: Record<string, string>) => query(motoEndpoint, 'ec2', { Version: '2016-11-15', ...p });
  const vpcId = xml(await ec2({ Action: 'CreateVpc', CidrBlock: '10.40.0.0/16' }), 'vpcId');
  // As the stack's VPC (CDK's default): tasks' network interfaces get DNS names (moto's RunTask needs them).
  await ec2({ Action: 'ModifyVpcAttribute', VpcId: vpcId, 'EnableDnsHostnames.Value': 'true' });
  const subnetIds = [
    xml(await ec2({ Action: 'CreateSubnet', VpcId: vpcId, CidrBlock: '10.40.0.0/20', AvailabilityZone: `${TWIN_REGION}a` }), 'subnetId'),
    xml(await ec2({ Action: 'CreateSubnet', VpcId: vpcId, CidrBlock: '10.40.16.0/20', AvailabilityZone: `${TWIN_REGION}b` }), 'subnetId'),
  ];
  const sg = (name: string) => ec2({ Action: 'CreateSecurityGroup', GroupName: name, GroupDescription: name, VpcId: vpcId });
  const albSg = xml(await sg('platform-alb'), 'groupId');
  const taskSg = xml(await sg('platform-tasks'), 'groupId');

  const ecs = new ECSClient(options);
  const elb = new ElasticLoadBalancingV2Client(options);
  const acm = new ACMClient(options);
  const route53 = new Route53Client(options);
  const secrets = new SecretsManagerClient(options);
  try {
    const cluster = await ecs.send(new CreateClusterCommand({ clusterName: 'deployments' }));
    const lb = await elb.send(
      new CreateLoadBalancerCommand({
        Name: 'deployments-shard-0',
        Subnets: subnetIds,
        SecurityGroups: [albSg],
        Scheme: 'internet-facing',
        Type: 'application',
      }),
    );
    const cert = await acm.send(new RequestCertificateCommand({ DomainName: `*.${domain}`, ValidationMethod: 'DNS' }));
    const listener = await elb.send(
      new CreateListenerCommand({
        LoadBalancerArn: lb.LoadBalancers![0]!.LoadBalancerArn!,
        Protocol: 'HTTPS',
        Port: 443,
        Certificates: [{ CertificateArn: cert.CertificateArn! }],
        DefaultActions: [
          {
            Type: 'fixed-response',
            FixedResponseConfig: { StatusCode: '404', ContentType: 'text/plain', MessageBody: 'no deployment here' },
          },
        ],
      }),
    );
    const zone = await route53.send(new CreateHostedZoneCommand({ Name: domain, CallerReference: `twin-${Date.now()}` }));
    const rds = (p: Record<string, string>) => query(motoEndpoint, 'rds', { Version: '2014-10-31', ...p });
    const dbClusterArn = xml(
      await rds({
        Action: 'CreateDBCluster',
        DBClusterIdentifier: 'deployments-metadata',
        Engine: 'aurora-postgresql',
        EngineVersion: '16.4',
        MasterUsername: TWIN_DB_ADMIN,
        MasterUserPassword: 'twin-admin-password',
        EnableHttpEndpoint: 'true',
      }),
      'DBClusterArn',
    );
    const admin = await secrets.send(
      new CreateSecretCommand({
        Name: 'platform/db-admin',
        SecretString: JSON.stringify({ username: TWIN_DB_ADMIN, password: 'twin-admin-password' }),
      }),
    );
    const efs = await fetch(`${motoEndpoint}/2015-02-01/file-systems`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `AWS4-HMAC-SHA256 Credential=twin/20260101/${TWIN_REGION}/elasticfilesystem/aws4_request, SignedHeaders=host, Signature=0`,
      },
      body: JSON.stringify({ CreationToken: 'deployments-dags', Encrypted: true }),
    });
    const fileSystemId = ((await efs.json()) as { FileSystemId: string }).FileSystemId;
    return {
      region: TWIN_REGION,
      clusterArn: cluster.cluster!.clusterArn!,
      subnetIds,
      securityGroupIds: [taskSg],
      listenerArns: [listener.Listeners![0]!.ListenerArn!],
      domain,
      hostedZoneId: zone.HostedZone!.Id!.replace('/hostedzone/', ''),
      dbClusterArn,
      dbAdminSecretArn: admin.ARN!,
      images: {
        airflow: `${ACCOUNT}.dkr.ecr.${TWIN_REGION}.amazonaws.com/deployments/airflow`,
        superset: `${ACCOUNT}.dkr.ecr.${TWIN_REGION}.amazonaws.com/deployments/superset`,
      },
      executionRoleArn: `arn:aws:iam::${ACCOUNT}:role/deployments-task-execution`,
      taskRoleArn: `arn:aws:iam::${ACCOUNT}:role/deployments-task`,
      logGroupPrefix: '/deployments',
      fileSystemId,
    };
  } finally {
    for (const c of [ecs, elb, acm, route53, secrets]) c.destroy();
  }
}
