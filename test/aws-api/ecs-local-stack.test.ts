/**
 * Decision 52 end to end: `PLATFORM=ecs npm start` runs the real ECS driver, through the
 * real ASL, against the local AWS twin (moto behind the proxy that moves time, PGlite
 * behind the Data API). Every operation type the API offers here is driven over HTTP and
 * its resources read back from the twin's AWS APIs; failures come from the twin's fault
 * hook, as AWS would produce them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ACMClient, paginateListCertificates } from '@aws-sdk/client-acm';
import {
  DescribeServicesCommand,
  DescribeTaskDefinitionCommand,
  ECSClient,
  ListServicesCommand,
  type TaskDefinition,
} from '@aws-sdk/client-ecs';
import {
  DescribeListenerCertificatesCommand,
  DescribeListenersCommand,
  DescribeLoadBalancersCommand,
  DescribeRulesCommand,
  DescribeTagsCommand,
  ElasticLoadBalancingV2Client,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { ListHostedZonesCommand, ListResourceRecordSetsCommand, type ResourceRecordSet, Route53Client } from '@aws-sdk/client-route-53';
import { GetSecretValueCommand, ListSecretsCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetExecutionHistoryCommand, type HistoryEvent, SFNClient } from '@aws-sdk/client-sfn';
import { readStackFile } from '../../cli-kit/stack-file.js';
import { stateTransitions } from '../../functions/core/state-transitions.js';
import { FAULTS_PATH, type TwinFaults } from '../../local/aws-twin/proxy.js';
import { localStateMachineArn } from '../../local/sfn-endpoint.js';
import { callStack, freePort, keysCli, type LocalProcess, startNpm } from '../helpers/local-process.js';
import { eventually } from '../helpers/wait.js';

jest.setTimeout(300_000);

const SECRET = 'ecs-twin-secret-value-';
let dataDir: string;
let env: Record<string, string>;
let stack: LocalProcess | undefined;
let key: string;
let awsEndpoint: string;
let ecs: ECSClient;
let elb: ElasticLoadBalancingV2Client;
let secrets: SecretsManagerClient;
let acm: ACMClient;
let route53: Route53Client;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dm-ecs-'));
  env = {
    PLATFORM: 'ecs',
    PORT: String(await freePort()),
    DYNAMODB_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    // The tests poll the API: the limits of a customer's key are not what they test.
    RATE_LIMIT_PER_MINUTE: '100000',
    CREATE_LIMIT_PER_HOUR: '1000',
    // Health changes are seen within seconds (decision 48's checker).
    HEALTH_CHECK_SECONDS: '2',
  };
  stack = await startNpm(env, 180_000);
  awsEndpoint = readStackFile(dataDir)!.aws_endpoint!;
  const options = { endpoint: awsEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } };
  ecs = new ECSClient(options);
  elb = new ElasticLoadBalancingV2Client(options);
  secrets = new SecretsManagerClient(options);
  acm = new ACMClient(options);
  route53 = new Route53Client(options);
  const made = keysCli(['create', '--org', 'ecs-org', '--name', 'twin', '--json'], env);
  expect(made.status).toBe(0);
  key = (JSON.parse(made.stdout) as { key: string }).key;
});

afterAll(async () => {
  for (const c of [ecs, elb, secrets, acm, route53]) c?.destroy();
  if (stack) await stack.stop().catch(() => stack!.kill());
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (method: string, p: string, body?: unknown) => callStack(stack!, key, method, p, body);

/** Sets the twin's faults (its proxy's hook); the faults now, as the twin has them. */
async function faults(f: Partial<TwinFaults>): Promise<TwinFaults> {
  const res = await fetch(`${awsEndpoint}${FAULTS_PATH}`, { method: 'POST', body: JSON.stringify(f) });
  expect(res.status).toBe(200);
  return (await res.json()) as TwinFaults;
}

async function finished(operationId: string): Promise<{ status: string; error?: { message: string; retryable: boolean } }> {
  return eventually(
    async () => {
      const op = (await api('GET', `/operations/${operationId}`)).body.data;
      return ['succeeded', 'failed', 'canceled'].includes(op.status) ? op : undefined;
    },
    `operation ${operationId} to end`,
    90_000,
    250,
  );
}

/** The history of the operation's execution, from the local engine's GetExecutionHistory, every page. */
async function executionHistory(operationId: string): Promise<HistoryEvent[]> {
  const file = readStackFile(dataDir)!;
  const sfn = new SFNClient({
    endpoint: file.sfn_endpoint!,
    region: 'us-east-1',
    credentials: { accessKeyId: file.credentials!.access_key_id, secretAccessKey: file.credentials!.secret_access_key },
  });
  const executionArn = `${localStateMachineArn('operation').replace(':stateMachine:', ':execution:')}:${operationId}`;
  const events: HistoryEvent[] = [];
  try {
    let nextToken: string | undefined;
    do {
      const page = await sfn.send(new GetExecutionHistoryCommand({ executionArn, maxResults: 40, ...(nextToken ? { nextToken } : {}) }));
      events.push(...(page.events ?? []));
      nextToken = page.nextToken;
    } while (nextToken);
  } finally {
    sfn.destroy();
  }
  expect(events.at(-1)?.type).toBe('ExecutionSucceeded');
  return events;
}

async function logs(operationId: string): Promise<string[]> {
  return (await api('GET', `/operations/${operationId}/logs?per_page=100`)).body.data.items.map((l: { message: string }) => l.message);
}

async function create(body: Record<string, unknown>): Promise<{ id: string; op: string }> {
  const res = await api('POST', '/deployments', body);
  expect(res.status).toBe(202);
  return { id: res.body.data.deployment_id, op: res.body.data.operation_id };
}

/** The ECS service tagged with the deployment (decision 52), with its task definition. */
async function serviceOf(deploymentId: string) {
  const cluster = 'deployments';
  const arns = (await ecs.send(new ListServicesCommand({ cluster }))).serviceArns ?? [];
  if (!arns.length) return undefined;
  const { services = [] } = await ecs.send(new DescribeServicesCommand({ cluster, services: arns, include: ['TAGS'] }));
  const service = services.find((s) => s.tags?.some((t) => t.key === 'deployment' && t.value === deploymentId) && s.status === 'ACTIVE');
  if (!service) return undefined;
  const def = (await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: service.taskDefinition }))).taskDefinition!;
  return { service, def };
}

/** Each app container's env and secrets, checked against the configuration as decision 52 says. */
async function expectRuns(def: TaskDefinition, version: string, env: Record<string, { value: string; secret?: boolean }>) {
  const apps = def.containerDefinitions!.filter((c) => c.image!.split(':').at(-1)!.includes(version));
  expect(apps.length).toBeGreaterThan(0);
  expect(JSON.stringify(def)).not.toContain(SECRET);
  for (const c of apps)
    for (const [name, e] of Object.entries(env)) {
      if (!e.secret) {
        expect(c.environment).toContainEqual({ name, value: e.value });
        continue;
      }
      const ref = c.secrets!.find((s) => s.name === name)!;
      // <secret ARN>:<JSON key>:<version stage>:<version id>
      const parts = ref.valueFrom!.split(':');
      const [jsonKey, , versionId] = parts.slice(-3);
      const arn = parts.slice(0, -3).join(':');
      const value = await secrets.send(new GetSecretValueCommand({ SecretId: arn, ...(versionId ? { VersionId: versionId } : {}) }));
      expect(JSON.parse(value.SecretString!)[jsonKey!]).toBe(e.value);
    }
}

async function ruleFor(host: string) {
  const lbs = (await elb.send(new DescribeLoadBalancersCommand({}))).LoadBalancers ?? [];
  for (const lb of lbs) {
    const listeners = (await elb.send(new DescribeListenersCommand({ LoadBalancerArn: lb.LoadBalancerArn }))).Listeners ?? [];
    for (const l of listeners) {
      const rules = (await elb.send(new DescribeRulesCommand({ ListenerArn: l.ListenerArn }))).Rules ?? [];
      const rule = rules.find((r) => r.Conditions?.some((c) => (c.HostHeaderConfig?.Values ?? c.Values ?? []).includes(host)));
      if (rule) return rule;
    }
  }
  return undefined;
}

/** The deployment's certificate (decision 274). */
async function certificateFor(host: string) {
  const wildcard = `*.${host.split('.').slice(1).join('.')}`;
  // Every page: the twin pages the list as ACM does.
  for await (const page of paginateListCertificates({ client: acm }, {})) {
    const cert = page.CertificateSummaryList?.find((c) => c.DomainName === wildcard);
    if (cert) return cert;
  }
  return undefined;
}

/** The first record of the twin's hosted zones that `match` accepts. */
async function recordWhere(match: (r: ResourceRecordSet) => boolean) {
  const zones = (await route53.send(new ListHostedZonesCommand({}))).HostedZones ?? [];
  for (const z of zones) {
    const sets = (await route53.send(new ListResourceRecordSetsCommand({ HostedZoneId: z.Id }))).ResourceRecordSets ?? [];
    const found = sets.find(match);
    if (found) return found;
  }
  return undefined;
}

const dnsRecordFor = (host: string) => recordWhere((r) => r.Name?.replace(/\.$/, '') === host && r.Type === 'A');

/** The DNS validation record of the deployment's certificate (its name holds the deployment id). */
const validationRecordFor = (deploymentId: string) => recordWhere((r) => r.Type === 'CNAME' && !!r.Name?.includes(deploymentId));

async function taggedSecrets(deploymentId: string) {
  const { SecretList = [] } = await secrets.send(new ListSecretsCommand({ IncludePlannedDeletion: true }));
  return SecretList.filter((s) => s.Tags?.some((t) => t.Key === 'deployment' && t.Value === deploymentId));
}

describe('PLATFORM=ecs npm start (decision 52)', () => {
  const env1 = { PLAIN: { value: 'plain-1' }, TOKEN: { value: `${SECRET}one`, secret: true } };
  let airflow: { id: string; op: string };
  let url: string;

  it('writes the twin endpoint to the stack file, and a create reaches ready with every resource in place', async () => {
    expect(awsEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    airflow = await create({ app_type: 'airflow', name: 'etl', config: { app_version: '2.11.0', size: 'medium', env: env1 } });
    expect(await finished(airflow.op)).toMatchObject({ status: 'succeeded' });
    const d = (await api('GET', `/deployments/${airflow.id}`)).body.data;
    expect(d.status).toBe('ready');
    url = d.url;
    // The create's first health check read the service, its tasks, its targets and its database (decision 48).
    const health = (await api('GET', `/deployments/${airflow.id}/health`)).body.data;
    expect(health).toMatchObject({ status: 'healthy' });
    expect(health.components.map((c: { name: string; status: string }) => [c.name, c.status])).toEqual(
      ['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db'].map((n) => [n, 'healthy']),
    );
    // Metrics come from CloudWatch (decision 49): the five series, none with a point before it ran.
    const metrics = await api('GET', `/deployments/${airflow.id}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.body.data.series.map((m: { metric: string }) => m.metric)).toEqual([
      'cpu_utilization',
      'memory_utilization',
      'http_requests',
      'http_errors',
      'response_time_p95',
    ]);
    const running = (await serviceOf(airflow.id))!;
    expect(running.service.desiredCount).toBeGreaterThanOrEqual(1);
    await expectRuns(running.def, '2.11.0', env1);
    const rule = (await ruleFor(new URL(url).host))!;
    const tg = rule.Actions![0]!.TargetGroupArn!;
    const tags = (await elb.send(new DescribeTagsCommand({ ResourceArns: [tg] }))).TagDescriptions![0]!.Tags!;
    expect(tags).toContainEqual({ Key: 'deployment', Value: airflow.id });
    const lines = await logs(airflow.op);
    expect(lines).toContain('INFO running: bash -c airflow db migrate');
    // Its certificate, added to the rule's listener, and the host's alias record (decision 274).
    const cert = (await certificateFor(new URL(url).host))!;
    expect(cert.Status).toBe('ISSUED');
    const attached = await elb.send(
      new DescribeListenerCertificatesCommand({
        ListenerArn: rule.RuleArn!.replace(':listener-rule/', ':listener/').split('/').slice(0, -1).join('/'),
      }),
    );
    expect(attached.Certificates?.map((c) => c.CertificateArn)).toContain(cert.CertificateArn);
    expect((await dnsRecordFor(new URL(url).host))?.AliasTarget?.DNSName).toBeTruthy();
    // What the create's workflow cost, counted from its execution's history as AWS bills it (decision 323).
    const transitions = stateTransitions(await executionHistory(airflow.op));
    expect(transitions).toBeGreaterThanOrEqual(3 + 2 * (3 + 3));
    expect(transitions).toBeLessThan(100);
  });

  it('a container whose health check fails makes the deployment degraded, with why, until it passes again', async () => {
    await faults({ unhealthy: ['triggerer'] });
    try {
      const degraded = await eventually(
        async () => {
          const h = (await api('GET', `/deployments/${airflow.id}/health`)).body.data;
          return h.status === 'degraded' ? h : undefined;
        },
        'the health to become degraded',
        30_000,
        250,
      );
      expect(degraded.components.find((c: { name: string }) => c.name === 'triggerer')).toMatchObject({
        status: 'unhealthy',
        message: expect.stringMatching(/triggerer container's health check fails/),
      });
    } finally {
      await faults({ unhealthy: [] });
    }
    await eventually(
      async () => ((await api('GET', `/deployments/${airflow.id}`)).body.data.health.status === 'healthy' ? true : undefined),
      'the health to be healthy again',
      30_000,
      250,
    );
  });

  it('an update runs a new revision holding the new configuration, with more CPU and memory for a larger size', async () => {
    const before = (await serviceOf(airflow.id))!.def;
    const env2 = { PLAIN: { value: 'plain-2' }, TOKEN: { value: `${SECRET}two`, secret: true } };
    const res = await api('PATCH', `/deployments/${airflow.id}`, { config: { size: 'large', env: env2 } });
    expect(res.status).toBe(202);
    expect(await finished(res.body.data.operation_id)).toMatchObject({ status: 'succeeded' });
    const after = (await serviceOf(airflow.id))!.def;
    expect(after.revision).toBeGreaterThan(before.revision!);
    await expectRuns(after, '2.11.0', env2);
    expect(Number(after.cpu)).toBeGreaterThan(Number(before.cpu));
    expect(Number(after.memory)).toBeGreaterThan(Number(before.memory));
  });

  it('a rollout the circuit breaker rolls back fails the update, and restore puts the previous revision back', async () => {
    const before = (await serviceOf(airflow.id))!;
    await faults({ failNextRollout: true });
    const res = await api('PATCH', `/deployments/${airflow.id}`, { config: { env: { PLAIN: { value: 'plain-3' } } } });
    const op = await finished(res.body.data.operation_id);
    expect(op).toMatchObject({ status: 'failed', error: { retryable: false } });
    expect(op.error!.message).toMatch(/did not become healthy/);
    await eventually(async () => (await serviceOf(airflow.id))?.service.taskDefinition === before.service.taskDefinition, 'the restore');
    expect((await api('GET', `/deployments/${airflow.id}`)).body.data).toMatchObject({ status: 'ready', revision: 2 });
  });

  it('a rollback to revision 1 runs a revision holding its configuration, secrets included', async () => {
    const res = await api('POST', `/deployments/${airflow.id}/rollback`, { revision: 1 });
    expect(res.status).toBe(202);
    expect(await finished(res.body.data.operation_id)).toMatchObject({ status: 'succeeded' });
    const { def } = (await serviceOf(airflow.id))!;
    await expectRuns(def, '2.11.0', env1);
    expect(def.cpu).toBe('2048');
  });

  it('a DAG sync and a user provisioning run as one-off tasks whose log lines reach the operation log', async () => {
    const sync = await api('POST', `/deployments/${airflow.id}/dag-syncs`, {});
    expect(await finished(sync.body.data.operation_id)).toMatchObject({ status: 'succeeded' });
    expect(await logs(sync.body.data.operation_id)).toContain('INFO running: bash -c sync-dags /opt/airflow/dags');
    const password = `${SECRET}user-pw`;
    const user = await api('POST', `/deployments/${airflow.id}/users`, {
      username: 'ana',
      email: 'ana@example.com',
      role: 'editor',
      password,
    });
    expect(user.status).toBe(202);
    const op = user.body.data.operation_id;
    expect(await finished(op)).toMatchObject({ status: 'succeeded' });
    const lines = await logs(op);
    expect(lines.some((l) => l.includes('airflow users create'))).toBe(true);
    expect(JSON.stringify(lines)).not.toContain(password);
  });

  it('a migration that exits non-zero fails the create for good, its error line in the log', async () => {
    await faults({ exitCodes: [{ match: 'superset db upgrade', code: 3 }] });
    const d = await create({ app_type: 'superset' });
    const op = await finished(d.op);
    expect(op).toMatchObject({ status: 'failed', error: { message: 'The database migration failed (exit code 3).', retryable: false } });
    expect(await logs(d.op)).toContain('ERROR the command exited with code 3');
  });

  it('a capacity shortage is transient: the create tries again and reaches ready', async () => {
    await faults({ capacity: 1 });
    const d = await create({ app_type: 'superset', config: { size: 'small' } });
    expect(await finished(d.op)).toMatchObject({ status: 'succeeded' });
    // The refused RunTask was the twin's one shortage: the migration that ran was the start tried again.
    expect((await faults({})).capacity).toBe(0);
    expect(await logs(d.op)).toContain('INFO running: bash -c superset db upgrade && superset init');
    expect(Number((await serviceOf(d.id))!.def.cpu)).toBeLessThan(2048);
  });

  it('a certificate ACM does not issue fails the create for good, saying why in its error and its log; its destroy leaves nothing', async () => {
    await faults({ failNextCertificate: { status: 'VALIDATION_TIMED_OUT' } });
    const d = await create({ app_type: 'superset' });
    const op = await finished(d.op);
    const domain = new URL(url).host.split('.').slice(2).join('.');
    expect(op).toMatchObject({ status: 'failed', error: { retryable: false } });
    expect(op.error!.message).toBe(
      `The TLS certificate for *.${d.id}.${domain} was not issued: its DNS validation record was not found within 72 hours ` +
        "(ACM: VALIDATION_TIMED_OUT). The deployment cannot serve its URL without it. The platform's operators must check the DNS " +
        `hosted zone of ${domain}: its CAA records must allow amazon.com (or it must have none), and the certificate's validation ` +
        'CNAME record must resolve; then delete this deployment and create it again.',
    );
    expect(await logs(d.op)).toContain(op.error!.message);
    expect((await faults({})).failNextCertificate).toBeNull();
    const host = `superset.${d.id}.${domain}`;
    // It was pending first: its validation record was written.
    expect(await certificateFor(host)).toBeDefined();
    expect(await validationRecordFor(d.id)).toBeDefined();
    const del = await api('DELETE', `/deployments/${d.id}`);
    expect(del.status).toBe(202);
    expect(await finished(del.body.data.operation_id)).toMatchObject({ status: 'succeeded' });
    expect(await serviceOf(d.id)).toBeUndefined();
    expect(await ruleFor(host)).toBeUndefined();
    expect(await certificateFor(host)).toBeUndefined();
    expect(await dnsRecordFor(host)).toBeUndefined();
    expect(await validationRecordFor(d.id)).toBeUndefined();
    expect((await taggedSecrets(d.id)).every((s) => s.DeletedDate)).toBe(true);
  });

  it('a destroy leaves no active service, rule or target group, and schedules its secrets for deletion', async () => {
    const res = await api('DELETE', `/deployments/${airflow.id}`);
    expect(res.status).toBe(202);
    expect(await finished(res.body.data.operation_id)).toMatchObject({ status: 'succeeded' });
    expect(await serviceOf(airflow.id)).toBeUndefined();
    expect(await ruleFor(new URL(url).host)).toBeUndefined();
    expect(await certificateFor(new URL(url).host)).toBeUndefined();
    expect(await dnsRecordFor(new URL(url).host)).toBeUndefined();
    const left = await taggedSecrets(airflow.id);
    expect(left.length).toBeGreaterThan(0);
    expect(left.every((s) => s.DeletedDate)).toBe(true);
  });

  it('a DELETE while provisioning cancels the create and destroys what it made', async () => {
    const d = await create({ app_type: 'airflow' });
    await eventually(
      async () => (await api('GET', `/operations/${d.op}`)).body.data.progress.phase === 'provisioning_infrastructure',
      'provisioning_infrastructure',
      60_000,
      100,
    );
    const del = await api('DELETE', `/deployments/${d.id}`);
    expect(del.status).toBe(202);
    expect(await finished(d.op)).toMatchObject({ status: 'canceled' });
    expect(await finished(del.body.data.operation_id)).toMatchObject({ status: 'succeeded' });
    expect(await serviceOf(d.id)).toBeUndefined();
    expect((await taggedSecrets(d.id)).every((s) => s.DeletedDate)).toBe(true);
  });
});
