/**
 * The loopback proxy in front of the twin's moto (decision 270). moto keeps every resource
 * and answers with AWS's shapes, but does not move time: services never finish rolling
 * out, one-off tasks never exit, the Data API runs no SQL. This layer supplies what AWS
 * would do over time, and nothing in the driver knows it is there:
 * - DescribeServices: an ACTIVE service's rollout to its task definition is COMPLETED
 *   with every desired task running (or FAILED, rolled back, when a fault asks);
 * - RunTask: each task stops after `taskMs` with exit code 0 (or a fault's code), its
 *   container's lines written to CloudWatch Logs in the awslogs stream AWS would write;
 *   a capacity fault answers with RunTask's `failures` instead;
 * - rds-data ExecuteStatement: real SQL on PGlite (data-api.ts);
 * - health (decision 48): a service's running tasks, listed and described as ECS would
 *   (ListTasks by service, DescribeTasks), each container HEALTHY unless a fault or the
 *   deployment's own SIMULATE_UNHEALTHY env entry names its component (so the twin answers
 *   health as the simulated platform does), and its task registered in its target group;
 * - metrics (decision 49): before a GetMetricData, each minute that has ended since the
 *   asked service started running gets the simulated platform's values (PutMetricData to
 *   moto, once), as ECS and the load balancer would publish them; moto computes no
 *   percentile, so a p95 is asked of it as the Maximum (one value a minute: the same);
 * - ACM: a certificate the fault hook names is pending, then fails as ACM fails one.
 * Everything else passes through to moto untouched.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CloudWatchClient, type MetricDatum, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeTaskDefinitionCommand, ECSClient, StopTaskCommand, type TaskDefinition } from '@aws-sdk/client-ecs';
import { ElasticLoadBalancingV2Client, RegisterTargetsCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import { DATABASE_HEALTH_SQL } from '../../functions/adapters/platform/ecs/monitoring.js';
import { simulatedMetrics } from '../../functions/adapters/platform/simulated-metrics.js';
import { METRIC_NAMES } from '../../functions/core/metrics-range.js';
import { COMPONENT_CONTAINERS, METRIC_SOURCES, type MetricQuery } from '../../functions/core/platform-ecs-monitoring.js';
import type { TwinDatabase } from './data-api.js';

/** Faults a test injects: each is used once. */
export interface TwinFaults {
  /** The next one-off task whose command contains `match` exits with `code`. */
  exitCodes: { match: string; code: number }[];
  /** The next `capacity` RunTask calls find no capacity (transient on AWS). */
  capacity: number;
  /** The next rollout to a new task definition fails and is rolled back (circuit breaker). */
  failNextRollout: boolean;
  /** Lines every one-off task writes before its own (e.g. to test redaction). */
  extraLines: string[];
  /** Health components (decision 48's names) every deployment reports unhealthy while listed: a container's health check failing, or the metadata database not answering. */
  unhealthy: string[];
  /**
   * The next certificate requested is not issued, as ACM fails one: its first
   * DescribeCertificate answers it PENDING_VALIDATION (its validation record to write),
   * every later one `status` (FAILED with `reason`, e.g. CAA_ERROR, or VALIDATION_TIMED_OUT).
   */
  failNextCertificate: { status: 'FAILED' | 'VALIDATION_TIMED_OUT'; reason?: string } | null;
}

export const noFaults = (): TwinFaults => ({
  exitCodes: [],
  capacity: 0,
  failNextRollout: false,
  extraLines: [],
  unhealthy: [],
  failNextCertificate: null,
});

interface EcsService {
  serviceArn?: string;
  serviceName?: string;
  loadBalancers?: { targetGroupArn?: string; containerPort?: number }[];
  status?: string;
  taskDefinition?: string;
  desiredCount?: number;
  runningCount?: number;
  pendingCount?: number;
  deployments?: Record<string, unknown>[];
}
interface EcsTask {
  taskArn?: string;
  taskDefinitionArn?: string;
  lastStatus?: string;
  stopCode?: string;
  overrides?: { containerOverrides?: { name?: string; command?: string[] }[] };
  containers?: { name?: string; exitCode?: number; reason?: string }[];
}

export interface TwinProxy {
  endpoint: string;
  faults: TwinFaults;
  /** How many AWS calls it has answered (what a check costs is measured by it). */
  calls(): number;
  close(): Promise<void>;
}

/** POST a partial TwinFaults here to set them (tests of `PLATFORM=ecs npm start`). */
export const FAULTS_PATH = '/_twin/faults';
/** GET here: `{calls}`, how many AWS calls the twin has answered. */
export const STATS_PATH = '/_twin/stats';
const ECS_TARGET = 'AmazonEC2ContainerServiceV20141113.';
const ACM_TARGET = 'CertificateManager.';
/** The twin's page of ListCertificates: small, so that every test with a few certificates reads past the first page. */
const ACM_PAGE = 2;
const serviceOf = (auth: string | undefined) => /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//.exec(auth ?? '')?.[1] ?? '';

export interface TwinProxyOptions {
  /** How long a one-off task runs (ms). */
  taskMs?: number;
  /** Metrics are published as if each service had started running this long before it did (tests of ended periods; default 0). */
  metricsBackfillSeconds?: number;
}

export async function startTwinProxy(motoEndpoint: string, database: TwinDatabase, options: TwinProxyOptions = {}): Promise<TwinProxy> {
  const taskMs = options.taskMs ?? 1500;
  const aws = { endpoint: motoEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'twin', secretAccessKey: 'twin' } };
  const ecs = new ECSClient(aws);
  const logs = new CloudWatchLogsClient(aws);
  const elb = new ElasticLoadBalancingV2Client(aws);
  const cloudwatch = new CloudWatchClient(aws);
  /** When each service (by its deployment's hex) started running, Unix seconds; and up to when each metric has been published. */
  const runningSince = new Map<string, number>();
  const publishedUntil = new Map<string, number>();
  const faults = noFaults();
  /** The exit code of each one-off task the twin stopped. */
  const exited = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  /** Each service's last completed revision, and the revisions whose rollout failed. */
  const completed = new Map<string, string>();
  const failedRevisions = new Set<string>();
  /** Each service the driver has looked at: the revision and the number of tasks it runs, by service name. */
  const running = new Map<string, { taskDefinition: string; count: number }>();
  /** Target groups a running service's task is registered in. */
  const registered = new Set<string>();
  const definitions = new Map<string, TaskDefinition | undefined>();

  async function definition(revision: string): Promise<TaskDefinition | undefined> {
    if (!definitions.has(revision))
      definitions.set(
        revision,
        (await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: revision })).catch(() => undefined))?.taskDefinition,
      );
    return definitions.get(revision);
  }

  /** The components a task definition's application reports unhealthy: the faults', and its own SIMULATE_UNHEALTHY entry's. */
  function unhealthyIn(def: TaskDefinition | undefined): Set<string> {
    const env = def?.containerDefinitions?.[0]?.environment ?? [];
    const own = env.find((e) => e.name === 'SIMULATE_UNHEALTHY')?.value ?? '';
    return new Set([...faults.unhealthy, ...own.split(',').map((n) => n.trim())].filter(Boolean));
  }

  // A service is `<app>-<hex of its deployment>`: its tasks' ids are that hex and a number.
  const idOf = (service: string) => service.split('-').at(-1) ?? service;
  const taskArnOf = (clusterArn: string, service: string, n: number) => `${clusterArn.replace(':cluster/', ':task/')}/${idOf(service)}${n}`;

  /** The service's tasks as DescribeTasks shows them; their containers' health as the faults and SIMULATE_UNHEALTHY say. */
  async function serviceTasks(clusterArn: string, service: string): Promise<Record<string, unknown>[]> {
    const state = running.get(service);
    if (!state || state.count === 0) return [];
    const def = await definition(state.taskDefinition);
    const app = service.startsWith('superset') ? 'superset' : 'airflow';
    const unhealthy = new Set([...unhealthyIn(def)].map((c) => COMPONENT_CONTAINERS[app][c] ?? c));
    const containers = (def?.containerDefinitions ?? []).map((c) => ({
      name: c.name,
      lastStatus: 'RUNNING',
      healthStatus: unhealthy.has(c.name ?? '') ? 'UNHEALTHY' : 'HEALTHY',
    }));
    return Array.from({ length: state.count }, (_, n) => ({
      taskArn: taskArnOf(clusterArn, service, n),
      clusterArn,
      taskDefinitionArn: state.taskDefinition,
      group: `service:${service}`,
      lastStatus: 'RUNNING',
      desiredStatus: 'RUNNING',
      launchType: 'FARGATE',
      healthStatus: containers.some((c) => c.healthStatus === 'UNHEALTHY') ? 'UNHEALTHY' : 'HEALTHY',
      containers,
    }));
  }

  /** The health query of a deployment whose metadata_db is to be unhealthy fails as an unreachable database would. */
  async function databaseDown(input: {
    sql?: string;
    parameters?: { name?: string; value?: { stringValue?: string } }[];
  }): Promise<boolean> {
    if (input.sql !== DATABASE_HEALTH_SQL) return false;
    const hex = input.parameters?.find((p) => p.name === 'd')?.value?.stringValue?.replace(/^d_/, '') ?? '';
    // The family's latest revision (not cached: an update registers a new one).
    for (const app of ['airflow', 'superset']) {
      const latest = await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: `${app}-${hex}` })).catch(() => undefined);
      if (unhealthyIn(latest?.taskDefinition).has('metadata_db')) return true;
    }
    return faults.unhealthy.includes('metadata_db');
  }

  // moto moves a task one status further at each describe; on AWS it runs until its command ends.
  await fetch(`${motoEndpoint}/moto-api/state-manager/set-transition`, {
    method: 'POST',
    body: JSON.stringify({ model_name: 'ecs::task', transition: { progression: 'manual', times: 1_000_000 } }),
  });

  async function finishTask(clusterArn: string, task: EcsTask): Promise<void> {
    const command = (task.overrides?.containerOverrides?.[0]?.command ?? []).join(' ');
    const fault = faults.exitCodes.findIndex((f) => command.includes(f.match));
    const code = fault >= 0 ? faults.exitCodes.splice(fault, 1)[0]!.code : 0;
    const def = await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: task.taskDefinitionArn }));
    const container = def.taskDefinition?.containerDefinitions?.[0];
    const opts = container?.logConfiguration?.options ?? {};
    const group = opts['awslogs-group'];
    if (group && container?.name) {
      const stream = `${opts['awslogs-stream-prefix']}/${container.name}/${task.taskArn!.split('/').at(-1)}`;
      await logs.send(new CreateLogStreamCommand({ logGroupName: group, logStreamName: stream })).catch(() => undefined);
      const now = Date.now();
      const lines = [
        ...faults.extraLines,
        `INFO running: ${command}`,
        code === 0 ? 'INFO the command completed' : `ERROR the command exited with code ${code}`,
      ];
      await logs.send(
        new PutLogEventsCommand({
          logGroupName: group,
          logStreamName: stream,
          logEvents: lines.map((message, i) => ({ message, timestamp: now - lines.length + i + 1 })),
        }),
      );
    }
    exited.set(task.taskArn!, code);
    await ecs.send(new StopTaskCommand({ cluster: clusterArn, task: task.taskArn, reason: 'Essential container in task exited' }));
  }

  function rollout(s: EcsService): void {
    if (s.status !== 'ACTIVE' || !s.taskDefinition) return;
    const key = s.serviceArn ?? '';
    const revision = s.taskDefinition;
    let state = 'COMPLETED';
    if (failedRevisions.has(revision)) state = 'FAILED';
    else if (completed.has(key) && completed.get(key) !== revision && faults.failNextRollout) {
      faults.failNextRollout = false;
      failedRevisions.add(revision);
      state = 'FAILED';
    } else completed.set(key, revision);
    const desired = s.desiredCount ?? 0;
    s.runningCount = state === 'COMPLETED' ? desired : 0;
    if (s.serviceName) running.set(s.serviceName, { taskDefinition: revision, count: s.runningCount });
    if (s.serviceName && s.runningCount > 0 && !runningSince.has(idOf(s.serviceName)))
      runningSince.set(idOf(s.serviceName), Math.floor(Date.now() / 1000) - (options.metricsBackfillSeconds ?? 0));
    s.pendingCount = 0;
    const primary = { ...(s.deployments?.[0] ?? {}), status: 'PRIMARY', taskDefinition: revision, desiredCount: desired };
    s.deployments = [
      {
        ...primary,
        runningCount: s.runningCount,
        rolloutState: state,
        rolloutStateReason: state === 'FAILED' ? 'ECS deployment circuit breaker: tasks failed to start.' : 'ECS deployment completed.',
      },
    ];
  }

  /** A running service's task in its target group, as ECS registers it (moto reports a registered target healthy). */
  async function registerTask(s: EcsService): Promise<void> {
    const group = s.loadBalancers?.[0]?.targetGroupArn;
    if (!group || !s.runningCount || registered.has(group)) return;
    await elb.send(
      new RegisterTargetsCommand({
        TargetGroupArn: group,
        Targets: [{ Id: '10.0.0.10', Port: s.loadBalancers?.[0]?.containerPort ?? 8080 }],
      }),
    );
    registered.add(group);
  }

  /** The ended minutes of each asked metric since its service ran, published once with the simulated platform's values. */
  async function publishMetrics(queries: MetricQuery[]): Promise<void> {
    const now = Math.floor(Date.now() / 60_000) * 60;
    for (const q of queries) {
      const dims = Object.fromEntries(q.MetricStat.Metric.Dimensions.map((d) => [d.Name, d.Value]));
      // The service `<app>-<hex>`, or the target group `targetgroup/d<hex, 31>/<id>`.
      const hex = dims.ServiceName ? idOf(dims.ServiceName) : (dims.TargetGroup?.split('/')[1] ?? '').slice(1);
      const since = [...runningSince].find(([id]) => hex && id.startsWith(hex))?.[1];
      const metric = METRIC_NAMES.find((m) => METRIC_SOURCES[m].metric === q.MetricStat.Metric.MetricName);
      if (since === undefined || !metric) continue;
      const key = `${q.MetricStat.Metric.MetricName}|${JSON.stringify(dims)}`;
      const from = publishedUntil.get(key) ?? Math.floor(since / 60) * 60;
      if (from >= now) continue;
      const [series] = simulatedMetrics(hex, 'small', { metrics: [metric], start: from, end: now, period: 60 }, [{ from, to: null }], now);
      const data: MetricDatum[] = series!.points.map((p) => ({
        MetricName: q.MetricStat.Metric.MetricName,
        Dimensions: q.MetricStat.Metric.Dimensions,
        Timestamp: new Date(p.time * 1000),
        Value: metric === 'response_time_p95' ? p.value / 1000 : p.value,
      }));
      for (let i = 0; i < data.length; i += 500)
        await cloudwatch.send(new PutMetricDataCommand({ Namespace: q.MetricStat.Metric.Namespace, MetricData: data.slice(i, i + 500) }));
      publishedUntil.set(key, now);
    }
  }

  /** Certificates the fault hook fails (by ARN), and how many times each has been described. */
  const failing = new Map<string, { status: string; reason?: string; described: number }>();

  /**
   * ACM: moto issues every certificate at once (MOTO_ACM_VALIDATION_WAIT=0); a fault makes one
   * fail as ACM would. moto lists every certificate in one answer; ACM pages the list, so the
   * twin does, in pages of ACM_PAGE: a reader that stops at the first page misses the rest here
   * as it would on AWS once an account holds more certificates than a page.
   */
  async function certificates(op: string, req: http.IncomingMessage, body: Buffer) {
    const res = await forward(req, body);
    if (res.status !== 200) return res;
    if (op === 'ListCertificates') return { ...res, body: Buffer.from(JSON.stringify(page(JSON.parse(res.body.toString()), body))) };
    const json = JSON.parse(res.body.toString()) as {
      CertificateArn?: string;
      Certificate?: { Status?: string; FailureReason?: string; DomainValidationOptions?: { ValidationStatus?: string }[] };
    };
    if (op === 'RequestCertificate' && faults.failNextCertificate && json.CertificateArn && !failing.has(json.CertificateArn)) {
      failing.set(json.CertificateArn, { ...faults.failNextCertificate, described: 0 });
      faults.failNextCertificate = null;
    }
    const fault =
      op === 'DescribeCertificate' && json.Certificate ? failing.get(String(JSON.parse(body.toString()).CertificateArn)) : undefined;
    if (!fault || !json.Certificate) return res;
    const status = fault.described++ === 0 ? 'PENDING_VALIDATION' : fault.status;
    json.Certificate.Status = status;
    if (status === 'FAILED' && fault.reason) json.Certificate.FailureReason = fault.reason;
    for (const o of json.Certificate.DomainValidationOptions ?? [])
      o.ValidationStatus = status === 'PENDING_VALIDATION' ? status : 'FAILED';
    return { ...res, body: Buffer.from(JSON.stringify(json)) };
  }

  /** One page of a ListCertificates answer, as `MaxItems` (at most ACM_PAGE) and `NextToken` ask. */
  function page(all: { CertificateSummaryList?: unknown[] }, body: Buffer) {
    const asked = JSON.parse(body.toString() || '{}') as { MaxItems?: number; NextToken?: string };
    const from = asked.NextToken ? Number(Buffer.from(asked.NextToken, 'base64url').toString()) : 0;
    const size = Math.min(asked.MaxItems ?? ACM_PAGE, ACM_PAGE);
    const list = all.CertificateSummaryList ?? [];
    const to = from + size;
    return {
      CertificateSummaryList: list.slice(from, to),
      ...(to < list.length ? { NextToken: Buffer.from(String(to)).toString('base64url') } : {}),
    };
  }

  async function forward(
    req: http.IncomingMessage,
    body: Buffer,
  ): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    const res = await fetch(`${motoEndpoint}${req.url}`, {
      method: req.method ?? 'GET',
      headers,
      ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
    });
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(k)) out[k] = v;
    });
    return { status: res.status, headers: out, body: Buffer.from(await res.arrayBuffer()) };
  }

  let answered = 0;
  async function handle(req: http.IncomingMessage, body: Buffer) {
    const service = serviceOf(req.headers.authorization);
    if (service) answered++;
    if (req.method === 'GET' && req.url === STATS_PATH && !service)
      return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ calls: answered })) };
    // The fault hook of tests that run the twin in another process (`npm start`): no AWS call has this path.
    if (req.method === 'POST' && req.url === FAULTS_PATH && !service) {
      Object.assign(faults, JSON.parse(body.toString() || '{}') as Partial<TwinFaults>);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(faults)) };
    }
    if (service === 'rds-data' && req.url?.startsWith('/Execute')) {
      const input = JSON.parse(body.toString() || '{}');
      if (await databaseDown(input))
        return {
          status: 400,
          headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'DatabaseUnavailableException' },
          body: Buffer.from(JSON.stringify({ message: 'The database is unavailable.' })),
        };
      const answer = await database.execute(input);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (answer.errorType) headers['x-amzn-errortype'] = answer.errorType;
      return { status: answer.status, headers, body: Buffer.from(JSON.stringify(answer.body)) };
    }
    const target = String(req.headers['x-amz-target'] ?? '');
    if (service === 'monitoring' && target.endsWith('.GetMetricData')) {
      const input = JSON.parse(body.toString() || '{}') as { MetricDataQueries?: MetricQuery[] };
      await publishMetrics(input.MetricDataQueries ?? []);
      for (const q of input.MetricDataQueries ?? []) if (q.MetricStat?.Stat === 'p95') q.MetricStat.Stat = 'Maximum';
      return forward(req, Buffer.from(JSON.stringify(input)));
    }
    if (target.startsWith(ACM_TARGET)) return certificates(target.slice(ACM_TARGET.length), req, body);
    if (!target.startsWith(ECS_TARGET)) return forward(req, body);
    const op = target.slice(ECS_TARGET.length);
    if (op === 'RunTask' && faults.capacity > 0) {
      faults.capacity--;
      const reason = 'Capacity is unavailable at this time. Please try again later or in a different availability zone';
      return {
        status: 200,
        headers: { 'content-type': 'application/x-amz-json-1.1' },
        body: Buffer.from(JSON.stringify({ tasks: [], failures: [{ reason }] })),
      };
    }
    const json200 = (value: unknown) => ({
      status: 200,
      headers: { 'content-type': 'application/x-amz-json-1.1' },
      body: Buffer.from(JSON.stringify(value)),
    });
    const asked = JSON.parse(body.toString() || '{}') as { cluster?: string; serviceName?: string; tasks?: string[] };
    // moto starts no service tasks: the twin lists and describes those ECS would run.
    if (op === 'ListTasks' && asked.serviceName) {
      const tasks = await serviceTasks(asked.cluster ?? '', asked.serviceName);
      return json200({ taskArns: tasks.map((t) => t.taskArn) });
    }
    if (op === 'DescribeTasks' && asked.tasks?.length) {
      const ours = new Map<string, Record<string, unknown>>();
      for (const name of new Set(asked.tasks.map((t) => [...running.keys()].find((n) => t.includes(`/${idOf(n)}`)))))
        if (name) for (const t of await serviceTasks(asked.cluster ?? '', name)) ours.set(String(t.taskArn), t);
      if (ours.size > 0 && asked.tasks.every((t) => ours.has(t)))
        return json200({ tasks: asked.tasks.map((t) => ours.get(t)), failures: [] });
    }
    const res = await forward(req, body);
    if (res.status !== 200) return res;
    const json = JSON.parse(res.body.toString()) as { tasks?: EcsTask[]; services?: EcsService[] };
    if (op === 'RunTask') {
      const cluster = (JSON.parse(body.toString()) as { cluster?: string }).cluster ?? 'default';
      for (const task of json.tasks ?? []) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          finishTask(cluster, task).catch((e: unknown) => console.error('twin: a task could not finish:', e));
        }, taskMs);
        timers.add(timer);
      }
      return res;
    }
    if (op === 'DescribeTasks')
      for (const task of json.tasks ?? []) {
        const code = exited.get(task.taskArn ?? '');
        if (code !== undefined) {
          task.stopCode = 'EssentialContainerExited';
          for (const c of task.containers ?? []) c.exitCode = code;
        } else if (task.lastStatus === 'STOPPED') for (const c of task.containers ?? []) delete c.exitCode; // stopped before it ran
      }
    else if (op === 'DescribeServices')
      for (const s of json.services ?? []) {
        rollout(s);
        await registerTask(s);
      }
    else return res;
    return { ...res, body: Buffer.from(JSON.stringify(json)) };
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, Buffer.concat(chunks))
        .then((out) => {
          res.writeHead(out.status, out.headers);
          res.end(out.body);
        })
        .catch((e: unknown) => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: `twin proxy: ${(e as Error).message}` }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    faults,
    calls: () => answered,
    async close() {
      for (const t of timers) clearTimeout(t);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      ecs.destroy();
      logs.destroy();
      elb.destroy();
      cloudwatch.destroy();
    },
  };
}
