/**
 * The ECS driver (functions/adapters/platform/ecs/) phase by phase against the local AWS
 * twin in this process: hibernation's phases, which no route of this branch starts yet
 * (decision 50), what a check costs in AWS calls (at most 6), the log cursor, and a
 * destroy that leaves the database gone, a certificate ACM fails (decision 322). Job
 * records go to moto's table (global-setup.cjs).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ACMClient, paginateListCertificates, RequestCertificateCommand } from '@aws-sdk/client-acm';
import { DescribeServicesCommand, ECSClient, ListTaskDefinitionsCommand, ListTasksCommand } from '@aws-sdk/client-ecs';
import { DescribeRulesCommand, DescribeTargetGroupsCommand, ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { ExecuteStatementCommand, RDSDataClient } from '@aws-sdk/client-rds-data';
import { ListResourceRecordSetsCommand, Route53Client } from '@aws-sdk/client-route-53';
import { certificateDomain } from '../../functions/adapters/platform/ecs/certificate.js';
import { ecsPlatform } from '../../functions/adapters/platform/ecs/ecs-platform.js';
import { serviceName, targetGroupName } from '../../functions/adapters/platform/ecs/names.js';
import type { EcsSettings } from '../../functions/adapters/platform/ecs/settings.js';
import { METRIC_NAMES } from '../../functions/core/metrics-range.js';
import type { HostingPlatform, JobHandle, JobStatus, PhaseJob, WorkPhase } from '../../functions/core/platform.js';
import { FAULTS_PATH, STATS_PATH, type TwinFaults } from '../../local/aws-twin/proxy.js';
import { twinEndpoints } from '../../local/aws-twin/twin.js';
import { type RecordedActions, recordPlatformCalls, ungranted, unused } from '../helpers/platform-grant-check.js';
import { eventually } from '../helpers/wait.js';

jest.setTimeout(180_000);

/** The twin in a process of its own (local/aws-twin/main.ts): jest cannot load PGlite's WASM in process. */
let child: ChildProcess;
let twin: {
  endpoint: string;
  settings: EcsSettings;
  calls(): Promise<number>;
  faults(f: Partial<TwinFaults>): Promise<void>;
};
let driver: HostingPlatform;
/** Every AWS call the driver made, by the use of the method that made it (the grant check). */
let recorded: RecordedActions;
let ecs: ECSClient;
let rdsData: RDSDataClient;
let acm: ACMClient;
let elb: ElasticLoadBalancingV2Client;
let route53: Route53Client;

beforeAll(async () => {
  child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../../local/aws-twin/main.ts')], {
    env: { ...process.env, APP_DOMAIN: 'apps.test', TWIN_TASK_MS: '300', TWIN_METRICS_BACKFILL_SECONDS: '900' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = await new Promise<{ endpoint: string; settings: EcsSettings }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
    });
    child.once('exit', (code) => reject(new Error(`the twin exited (${code}) before it was ready`)));
  });
  twin = {
    ...started,
    calls: async () => ((await (await fetch(`${started.endpoint}${STATS_PATH}`)).json()) as { calls: number }).calls,
    faults: async (f) => {
      await fetch(`${started.endpoint}${FAULTS_PATH}`, { method: 'POST', body: JSON.stringify(f) });
    },
  };
  Object.assign(process.env, twinEndpoints(twin.endpoint));
  ({ driver, recorded } = recordPlatformCalls(ecsPlatform({ settings: twin.settings, appDomain: 'apps.test' })));
  const options = { endpoint: twin.endpoint, region: 'us-east-1', credentials: { accessKeyId: 't', secretAccessKey: 't' } };
  ecs = new ECSClient(options);
  rdsData = new RDSDataClient(options);
  acm = new ACMClient(options);
  elb = new ElasticLoadBalancingV2Client(options);
  route53 = new Route53Client(options);
});

afterAll(async () => {
  for (const c of [ecs, rdsData, acm, elb, route53]) c?.destroy();
  if (child && child.exitCode === null) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
});

const deploymentId = randomUUID();
const target = { orgId: 'org-driver', deploymentId, appType: 'airflow' as const, name: 'etl' };
const config = {
  app_version: '3.1.3',
  size: 'small',
  env: { A: { value: 'a', secret: false }, S: { value: 'driver-secret-value-1', secret: true } },
};

/** Most AWS calls one check made. */
let costliestCheck = 0;

/** Checks the job until it ends, with `check` (the driver's, or one that counts its calls). */
const untilEnded = (handle: JobHandle, check = (h: JobHandle) => driver.check(h, { limit: 25 })) =>
  eventually(
    async () => {
      const s = await check(handle);
      return s.state === 'running' ? undefined : s;
    },
    `job ${handle} to end`,
    30_000,
    200,
  );

/** Starts the phase's job and checks it until it ends; every check's AWS calls counted. */
async function run(phase: WorkPhase, extra: Partial<PhaseJob> = {}): Promise<{ handle: JobHandle; status: JobStatus }> {
  const handle = await driver.start({ operationId: `op_${randomUUID()}`, phase, target, ...extra });
  const status = await untilEnded(handle, async (h) => {
    const before = await twin.calls();
    const s = await driver.check(h, { limit: 25 });
    costliestCheck = Math.max(costliestCheck, (await twin.calls()) - before);
    return s;
  });
  return { handle, status };
}

/** The deployment's service (this file's deployment unless told), as ECS describes it. */
const service = async (id = deploymentId) =>
  (await ecs.send(new DescribeServicesCommand({ cluster: twin.settings.clusterArn, services: [serviceName('airflow', id)] })))
    .services![0]!;

/** The platform's hosted zone's records. */
const records = async () =>
  (await route53.send(new ListResourceRecordSetsCommand({ HostedZoneId: twin.settings.hostedZoneId }))).ResourceRecordSets ?? [];

/** The deployment's database and role, as the cluster has them. */
const database = async (id = deploymentId) =>
  (
    await rdsData.send(
      new ExecuteStatementCommand({
        resourceArn: twin.settings.dbClusterArn,
        secretArn: twin.settings.dbAdminSecretArn,
        sql: 'SELECT datname FROM pg_database WHERE datname = :d UNION ALL SELECT rolname FROM pg_roles WHERE rolname = :d',
        parameters: [{ name: 'd', value: { stringValue: `d_${id.replaceAll('-', '')}` } }],
      }),
    )
  ).records ?? [];

describe('the ECS driver on the twin, phase by phase', () => {
  it('creates the database with real SQL and the service, each check at most 6 AWS calls', async () => {
    expect((await run('provisioning_db')).status).toEqual({ state: 'succeeded' });
    expect(await database()).toHaveLength(2);
    expect((await run('provisioning_infrastructure', { config })).status).toMatchObject({ state: 'succeeded' });
    expect(await service()).toMatchObject({ status: 'ACTIVE', desiredCount: 1 });
    expect(costliestCheck).toBeGreaterThan(0);
    expect(costliestCheck).toBeLessThanOrEqual(6);
  });

  it('reports a fresh deployment healthy from AWS, and a failing container or database with why, in at most 5 calls', async () => {
    const before = await twin.calls();
    expect(await driver.health!(target, { ...config, env: {} } as never)).toEqual(
      ['webserver', 'scheduler', 'dag_processor', 'triggerer', 'metadata_db'].map((name) => ({ name, status: 'healthy', message: null })),
    );
    expect((await twin.calls()) - before).toBeLessThanOrEqual(5);
    await twin.faults({ unhealthy: ['scheduler', 'metadata_db'] });
    const sick = await driver.health!(target, { ...config, env: {} } as never);
    await twin.faults({ unhealthy: [] });
    expect(sick.filter((c) => c.status !== 'healthy')).toEqual([
      { name: 'scheduler', status: 'unhealthy', message: expect.stringMatching(/scheduler container's health check fails/) },
      { name: 'metadata_db', status: 'unhealthy', message: expect.stringMatching(/DatabaseUnavailableException/) },
    ]);
  });

  it('reads the five metrics in one GetMetricData, within decision 49 bounds, only in ended periods it ran in', async () => {
    const end = Math.floor(Date.now() / 60_000) * 60;
    const window = { metrics: [...METRIC_NAMES], start: end - 600, end, period: 60 as const };
    const runs = [{ from: end - 480, to: null }];
    const before = await twin.calls();
    const series = await driver.metrics!({ ...target, size: 'small' }, window, runs);
    // The target group looked up by name, and the one GetMetricData.
    expect((await twin.calls()) - before).toBe(2);
    expect(series.map((s) => [s.metric, s.unit])).toEqual([
      ['cpu_utilization', 'percent'],
      ['memory_utilization', 'percent'],
      ['http_requests', 'count'],
      ['http_errors', 'count'],
      ['response_time_p95', 'milliseconds'],
    ]);
    const at = (metric: string) => new Map(series.find((s) => s.metric === metric)!.points.map((p) => [p.time, p.value]));
    for (const s of series) {
      expect(s.points.map((p) => p.time)).toEqual(Array.from({ length: 8 }, (_, i) => end - 480 + i * 60));
      for (const p of s.points) {
        expect(p.value).toBeGreaterThanOrEqual(0);
        if (s.unit === 'percent') expect(p.value).toBeLessThanOrEqual(100);
        if (s.unit === 'count') expect(Number.isInteger(p.value)).toBe(true);
      }
    }
    for (const [t, errors] of at('http_errors')) expect(errors).toBeLessThanOrEqual(at('http_requests').get(t)!);
    expect([...at('http_requests').values()].some((v) => v > 0)).toBe(true);
    expect([...at('response_time_p95').values()].every((v) => v >= 100)).toBe(true);
    // Ended periods answer the same at every later request.
    expect(await driver.metrics!({ ...target, size: 'small' }, window, runs)).toEqual(series);
  });

  it('starting the same job again starts nothing more', async () => {
    const job: PhaseJob = { operationId: `op_${randomUUID()}`, phase: 'syncing_dags', target };
    const first = await driver.start(job);
    const calls = await twin.calls();
    expect(await driver.start(job)).toBe(first);
    expect((await twin.calls()) - calls).toBe(0);
  });

  it('hands out a one-off task log a line at a time from its cursor, never twice', async () => {
    await twin.faults({ extraLines: ['INFO fetching', 'INFO unpacking'] });
    const { handle } = await run('syncing_dags');
    await twin.faults({ extraLines: [] });
    const seen: string[] = [];
    let after: string | undefined;
    for (let i = 0; i < 6; i++) {
      const { log } = await driver.check(handle, { limit: 1, ...(after ? { after } : {}) });
      seen.push(...log!.lines.map((l) => l.message));
      after = log!.cursor;
    }
    expect(seen).toEqual([
      'INFO fetching',
      'INFO unpacking',
      'INFO running: bash -c sync-dags /opt/airflow/dags',
      'INFO the command completed',
    ]);
  });

  it('hibernates to desired count 0 and wakes to 1 (decision 50)', async () => {
    expect((await run('stopping_services')).status).toEqual({ state: 'succeeded' });
    expect(await service()).toMatchObject({ status: 'ACTIVE', desiredCount: 0 });
    expect((await run('starting_services')).status).toEqual({ state: 'succeeded' });
    expect((await service()).desiredCount).toBeGreaterThanOrEqual(1);
  });

  it('updates to a new revision, restores the previous one and cancels a one-off task', async () => {
    const operationId = `op_${randomUUID()}`;
    const before = (await service()).taskDefinition;
    // The twin honours SIMULATE_UNHEALTHY as the simulated platform does, through the containers' health.
    const changed = {
      ...config,
      env: { ...config.env, A: { value: 'b', secret: false }, SIMULATE_UNHEALTHY: { value: 'dag_processor', secret: false } },
    };
    expect((await run('applying_config', { operationId, config: changed })).status).toEqual({ state: 'succeeded' });
    expect((await run('restarting_services', { operationId })).status).toMatchObject({ state: 'succeeded' });
    expect((await service()).taskDefinition).not.toBe(before);
    expect((await driver.health!(target, changed as never)).filter((c) => c.status !== 'healthy').map((c) => c.name)).toEqual([
      'dag_processor',
    ]);
    await driver.restore!({ operationId, orgId: target.orgId, deploymentId });
    expect((await service()).taskDefinition).toBe(before);
    const handle = await driver.start({ operationId: `op_${randomUUID()}`, phase: 'syncing_dags', target });
    await driver.cancel(handle);
    expect((await driver.check(handle)).state).not.toBe('running');
  });

  it('a restart still on its way when the update was canceled leaves the restored revision running', async () => {
    const operationId = `op_${randomUUID()}`;
    const before = (await service()).taskDefinition;
    const changed = { ...config, env: { ...config.env, A: { value: 'c', secret: false } } };
    expect((await run('applying_config', { operationId, config: changed })).status).toEqual({ state: 'succeeded' });
    // The cancel's restore runs first; the restart step the stopped execution was running lands after it.
    await driver.restore!({ operationId, orgId: target.orgId, deploymentId });
    await driver.start({ operationId, phase: 'restarting_services', target });
    expect((await service()).taskDefinition).toBe(before);
  });

  it('destroys the service and drops the database and its role', async () => {
    expect((await run('destroying_infrastructure')).status).toEqual({ state: 'succeeded' });
    expect((await service()).status).toBe('INACTIVE');
    expect((await run('destroying_db')).status).toEqual({ state: 'succeeded' });
    expect(await database()).toHaveLength(0);
    expect(costliestCheck).toBeLessThanOrEqual(6);
  });

  it('a certificate ACM fails ends provisioning_infrastructure for good, saying why and what to do; a destroy leaves nothing', async () => {
    const other = { ...target, deploymentId: randomUUID(), name: 'cert' };
    const host = `airflow.${other.deploymentId}.apps.test`;
    // Other deployments' certificates, listed before this one's: the twin pages the list by 2 as ACM pages it.
    for (const n of [1, 2, 3])
      await acm.send(
        new RequestCertificateCommand({ DomainName: `*.other-${n}-${other.deploymentId}.apps.test`, ValidationMethod: 'DNS' }),
      );
    expect((await run('provisioning_db', { target: other })).status).toEqual({ state: 'succeeded' });
    await twin.faults({ failNextCertificate: { status: 'FAILED', reason: 'CAA_ERROR' } });
    const { status } = await run('provisioning_infrastructure', { target: other, config });
    expect(status).toMatchObject({
      state: 'failed',
      transient: false,
      message:
        `The TLS certificate for *.${other.deploymentId}.apps.test was not issued: a CAA record of the domain does not allow ` +
        'Amazon to issue certificates for it (ACM: FAILED, CAA_ERROR). The deployment cannot serve its URL without it. ' +
        "The platform's operators must check the DNS hosted zone of apps.test: its CAA records must allow amazon.com " +
        '(or it must have none); then delete this deployment and create it again.',
    });
    // It was pending first: its validation record was written, and no service was made.
    expect((await records()).filter((r) => r.Type === 'CNAME' && r.Name!.includes(other.deploymentId))).toHaveLength(1);
    expect(
      (
        await ecs.send(
          new DescribeServicesCommand({ cluster: twin.settings.clusterArn, services: [serviceName('airflow', other.deploymentId)] }),
        )
      ).services,
    ).toEqual([]);
    expect((await run('destroying_infrastructure', { target: other })).status).toEqual({ state: 'succeeded' });
    expect((await run('destroying_db', { target: other })).status).toEqual({ state: 'succeeded' });
    // Nothing of it is left: no DNS record (alias or validation), certificate, target group or rule.
    expect((await records()).filter((r) => r.Name!.includes(other.deploymentId))).toEqual([]);
    const certificates = [];
    for await (const p of paginateListCertificates({ client: acm }, {})) certificates.push(...(p.CertificateSummaryList ?? []));
    expect(certificates.filter((c) => c.DomainName?.includes(other.deploymentId)).map((c) => c.DomainName)).toEqual(
      [1, 2, 3].map((n) => `*.other-${n}-${other.deploymentId}.apps.test`),
    );
    expect(certificates.filter((c) => c.DomainName === certificateDomain(host))).toEqual([]);
    await expect(elb.send(new DescribeTargetGroupsCommand({ Names: [targetGroupName(other.deploymentId)] }))).rejects.toMatchObject({
      name: 'TargetGroupNotFoundException',
    });
    const rules = (await elb.send(new DescribeRulesCommand({ ListenerArn: twin.settings.listenerArns[0] }))).Rules ?? [];
    expect(JSON.stringify(rules)).not.toContain(host);
  });

  it('a destroy takes down what steps of the canceled create, still running when it began, made after it', async () => {
    // A stopped execution does not stop the step it was running: a create's start and the
    // check that makes the service (or the database) can land after the destroy's starts
    // took everything down.
    const late = { ...target, deploymentId: randomUUID(), name: 'late' };
    const destroyInfrastructure = await driver.start({
      operationId: `op_${randomUUID()}`,
      phase: 'destroying_infrastructure',
      target: late,
    });
    const destroyDb = await driver.start({ operationId: `op_${randomUUID()}`, phase: 'destroying_db', target: late });
    expect((await run('provisioning_db', { target: late })).status).toEqual({ state: 'succeeded' });
    const create = await driver.start({ operationId: `op_${randomUUID()}`, phase: 'provisioning_infrastructure', target: late, config });
    await eventually(
      async () => (await driver.check(create)).state === 'running' && (await service(late.deploymentId))?.status === 'ACTIVE',
      'the late service',
      30_000,
      200,
    );

    // Not counted: a check that finds something left makes a start's calls (decision 331).
    expect(await untilEnded(destroyInfrastructure)).toEqual({ state: 'succeeded' });
    expect(await database(late.deploymentId)).toHaveLength(2);
    expect(await untilEnded(destroyDb)).toEqual({ state: 'succeeded' });
    expect(await database(late.deploymentId)).toEqual([]);
    expect((await service(late.deploymentId)).status).toBe('INACTIVE');
    await expect(elb.send(new DescribeTargetGroupsCommand({ Names: [targetGroupName(late.deploymentId)] }))).rejects.toMatchObject({
      name: 'TargetGroupNotFoundException',
    });
    const host = `airflow.${late.deploymentId}.apps.test`;
    const rules = (await elb.send(new DescribeRulesCommand({ ListenerArn: twin.settings.listenerArns[0] }))).Rules ?? [];
    expect(JSON.stringify(rules)).not.toContain(host);
    expect((await records()).filter((r) => r.Name!.includes(late.deploymentId))).toEqual([]);
    const certificates = [];
    for await (const p of paginateListCertificates({ client: acm }, {})) certificates.push(...(p.CertificateSummaryList ?? []));
    expect(certificates.filter((c) => c.DomainName === certificateDomain(host))).toEqual([]);
    const families = await ecs.send(
      new ListTaskDefinitionsCommand({ familyPrefix: serviceName('airflow', late.deploymentId), status: 'ACTIVE' }),
    );
    expect(families.taskDefinitionArns).toEqual([]);
  });

  it('a create canceled while its check made the service: that check scales it to 0', async () => {
    const other = { ...target, deploymentId: randomUUID(), name: 'halt' };
    expect((await run('provisioning_db', { target: other })).status).toEqual({ state: 'succeeded' });
    const operationId = `op_${randomUUID()}`;
    const create = await driver.start({ operationId, phase: 'provisioning_infrastructure', target: other, config });
    // The migration has exited 0; the check that makes the service is on its way when the cancel runs.
    await eventually(
      async () =>
        ((await ecs.send(new ListTasksCommand({ cluster: twin.settings.clusterArn, startedBy: operationId, desiredStatus: 'STOPPED' })))
          .taskArns?.length ?? 0) > 0,
      'the migration to exit',
      30_000,
      100,
    );
    await driver.cancel(create);
    expect((await driver.check(create)).state).toBe('running');
    expect(await service(other.deploymentId)).toMatchObject({ status: 'ACTIVE', desiredCount: 0 });
    expect((await run('destroying_infrastructure', { target: other })).status).toEqual({ state: 'succeeded' });
    expect((await run('destroying_db', { target: other })).status).toEqual({ state: 'succeeded' });
  });

  it('made only calls its grants allow, each under the use of the method that made it (decision 313)', () => {
    expect(ungranted(recorded)).toEqual({ drive: [], cancel: [], restore: [], observe: [] });
    // Least privilege: every action granted to drive and restore was needed by a call here.
    expect(unused(recorded)).toMatchObject({ drive: [], restore: [], observe: [] });
  });
});
