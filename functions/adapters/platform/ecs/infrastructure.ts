/**
 * provisioning_infrastructure and destroying_infrastructure. A create registers the task
 * definitions (secrets in Secrets Manager first), routes the url's host to a target group
 * on a load-balancer shard, runs the database migration as a one-off task, and only when
 * it exited 0 creates the ECS service; done when the service's rollout completes. A
 * destroy takes it all down in an order AWS accepts: service, rule, target group, task
 * definitions, secrets (scheduled for deletion).
 */
import { CreateLogGroupCommand, PutRetentionPolicyCommand } from '@aws-sdk/client-cloudwatch-logs';
import {
  CreateServiceCommand,
  DeleteServiceCommand,
  DeleteTaskDefinitionsCommand,
  DeregisterTaskDefinitionCommand,
  DescribeServicesCommand,
  ListTaskDefinitionsCommand,
  RegisterTaskDefinitionCommand,
  UpdateServiceCommand,
} from '@aws-sdk/client-ecs';
import {
  CreateRuleCommand,
  CreateTargetGroupCommand,
  DeleteRuleCommand,
  DeleteTargetGroupCommand,
  DescribeListenersCommand,
  DescribeLoadBalancersCommand,
  DescribeRulesCommand,
  DescribeTargetGroupsCommand,
  type Rule,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type { AppType } from '../../../../contract/vocabulary.js';
import { deploymentUrl } from '../../../core/deployments.js';
import type { JobStatus, LogRequest, PlatformConfig } from '../../../core/platform.js';
import {
  freePriority,
  pickShard,
  rolloutStatus,
  SERVICE_MADE_CHECK_SECONDS,
  type ServiceObservation,
  taskStatus,
} from '../../../core/platform-ecs.js';
import { aliasRecord, attachCertificate, pointHost, removeCertificate, requestCertificate } from './certificate.js';
import { aws, type EcsContext, type EcsJob, errorName, type JobRecord, readRecord, unlessAbsent, writeRecord } from './context.js';
import {
  clientToken,
  dbSecretName,
  deploymentTags,
  envSecretName,
  logGroupName,
  serviceFamily,
  serviceName,
  targetGroupName,
  userSecretName,
} from './names.js';
import { observeTask, runOneOff, stopOneOff, taskLog } from './one-off-tasks.js';
import { deleteSecret, putSecret, secretArnOf, secretEnvJson } from './secrets.js';
import { taskDefinitions, webContainer } from './task-definition.js';

const elbTags = (job: EcsJob) => deploymentTags(job.dep, job.org).map((t) => ({ Key: t.key, Value: t.value }));
const hostOf = (ctx: EcsContext, job: EcsJob) => new URL(deploymentUrl({ app_type: job.app, id: job.dep }, ctx.appDomain)).host;

/** The command of the migration task: the schema, and Superset's roles. */
const MIGRATE: Record<AppType, string[]> = {
  airflow: ['bash', '-c', 'airflow db migrate'],
  superset: ['bash', '-c', 'superset db upgrade && superset init'],
};

/** Registers the service's and the one-off tasks' task definitions for `config`; the service's ARN. */
export async function registerConfig(ctx: EcsContext, job: EcsJob, config: PlatformConfig, step: string): Promise<string> {
  const env = await putSecret(ctx, job, envSecretName(job.dep), `env-${step}`, secretEnvJson(config));
  const user = await putSecret(ctx, job, userSecretName(job.dep), 'user', JSON.stringify({ password: '' }));
  const dbSecretArn = (await secretArnOf(ctx, dbSecretName(job.dep))) ?? dbSecretName(job.dep);
  const defs = taskDefinitions(
    ctx.settings,
    { deploymentId: job.dep, orgId: job.org, appType: job.app },
    config,
    { envSecretArn: env.arn, envVersionId: env.versionId, dbSecretArn, userSecretArn: user.arn },
    job.op,
  );
  const service = await aws('registered a task definition', () => ctx.aws.ecs.send(new RegisterTaskDefinitionCommand(defs.service)));
  await aws('registered a task definition', () => ctx.aws.ecs.send(new RegisterTaskDefinitionCommand(defs.job)));
  return service.taskDefinition!.taskDefinitionArn!;
}

async function ensureLogGroup(ctx: EcsContext, job: EcsJob): Promise<void> {
  const name = logGroupName(ctx.settings.logGroupPrefix, job.dep);
  const tags = Object.fromEntries(deploymentTags(job.dep, job.org).map((t) => [t.key, t.value]));
  await unlessAbsent('made the log group', ['ResourceAlreadyExistsException'], () =>
    ctx.aws.logs.send(new CreateLogGroupCommand({ logGroupName: name, tags })),
  );
  await aws('set the log retention', () => ctx.aws.logs.send(new PutRetentionPolicyCommand({ logGroupName: name, retentionInDays: 30 })));
}

const hostRule = (rules: Rule[], host: string) =>
  rules.find((r) => r.Conditions?.some((c) => c.Field === 'host-header' && (c.HostHeaderConfig?.Values ?? c.Values ?? []).includes(host)));

/** The target group, and the host-header rule on the shard's listener forwarding to it (decision 275). */
interface Route {
  targetGroupArn: string;
  listenerArn: string;
  ruleArn: string;
  /** The shard's load balancer, for the host's alias record. */
  lbDnsName: string;
  lbZoneId: string;
}

async function ensureRoute(ctx: EcsContext, job: EcsJob): Promise<Route> {
  const { listenerArns } = ctx.settings;
  const listener = await aws('looked at the load balancer', () =>
    ctx.aws.elb.send(new DescribeListenersCommand({ ListenerArns: [listenerArns[0]!] })),
  );
  const lb = await aws('looked at the load balancer', () =>
    ctx.aws.elb.send(new DescribeLoadBalancersCommand({ LoadBalancerArns: [listener.Listeners![0]!.LoadBalancerArn!] })),
  );
  const balancer = { lbDnsName: lb.LoadBalancers![0]!.DNSName!, lbZoneId: lb.LoadBalancers![0]!.CanonicalHostedZoneId! };
  const web = webContainer(job.app);
  const name = targetGroupName(job.dep);
  let targetGroupArn: string;
  try {
    const out = await aws('made the target group', () =>
      ctx.aws.elb.send(
        new CreateTargetGroupCommand({
          Name: name,
          Protocol: 'HTTP',
          Port: web.port,
          VpcId: lb.LoadBalancers![0]!.VpcId!,
          TargetType: 'ip',
          HealthCheckPath: '/health',
          Matcher: { HttpCode: '200-399' },
          Tags: elbTags(job),
        }),
      ),
    );
    targetGroupArn = out.TargetGroups![0]!.TargetGroupArn!;
  } catch (e) {
    // An identical repeat answers with the group, but one whose settings differ is refused
    // as a duplicate: the name is the deployment's, so look that group up.
    if (errorName(e) !== 'DuplicateTargetGroupNameException') throw e;
    const out = await aws('looked up the target group', () => ctx.aws.elb.send(new DescribeTargetGroupsCommand({ Names: [name] })));
    targetGroupArn = out.TargetGroups![0]!.TargetGroupArn!;
  }
  const host = hostOf(ctx, job);
  const rules = await Promise.all(
    listenerArns.map(
      async (arn) =>
        (await aws('read the routing rules', () => ctx.aws.elb.send(new DescribeRulesCommand({ ListenerArn: arn })))).Rules ?? [],
    ),
  );
  const found = rules.findIndex((r) => hostRule(r, host));
  if (found >= 0)
    return { targetGroupArn, listenerArn: listenerArns[found]!, ruleArn: hostRule(rules[found]!, host)!.RuleArn!, ...balancer };
  const shard = pickShard(rules.map((r) => r.length));
  const priority = freePriority(rules[shard]!.flatMap((r) => (r.Priority && r.Priority !== 'default' ? [Number(r.Priority)] : [])));
  const out = await aws('made the routing rule', () =>
    ctx.aws.elb.send(
      new CreateRuleCommand({
        ListenerArn: listenerArns[shard]!,
        Priority: priority,
        Conditions: [{ Field: 'host-header', HostHeaderConfig: { Values: [host] } }],
        Actions: [{ Type: 'forward', TargetGroupArn: targetGroupArn }],
        Tags: elbTags(job),
      }),
    ),
  );
  return { targetGroupArn, listenerArn: listenerArns[shard]!, ruleArn: out.Rules![0]!.RuleArn!, ...balancer };
}

export async function startProvisioningInfrastructure(ctx: EcsContext, job: EcsJob, config: PlatformConfig): Promise<void> {
  // Each step is recorded as it is done: a retried start goes on from the first one not done.
  let record = (await readRecord(job, job.phase)) ?? {};
  const save = async (more: JobRecord) => {
    record = { ...record, ...more };
    await writeRecord(job, record, ctx.now());
  };
  if (!record.taskDefinition) {
    await ensureLogGroup(ctx, job);
    await save({ taskDefinition: await registerConfig(ctx, job, config, 'create') });
  }
  if (!record.ruleArn) await save({ ...(await ensureRoute(ctx, job)) });
  if (!record.certificateArn) {
    const host = hostOf(ctx, job);
    await pointHost(ctx, aliasRecord(host, { DNSName: String(record.lbDnsName), CanonicalHostedZoneId: String(record.lbZoneId) }));
    await save({ certificateArn: await requestCertificate(ctx, job, host) });
  }
  if (!record.migrateTaskArn) await save({ migrateTaskArn: await runOneOff(ctx, job, { step: 'migrate', command: MIGRATE[job.app] }) });
}

/** What DescribeServices says of the deployment's service (one call). */
export async function observeService(ctx: EcsContext, job: EcsJob): Promise<ServiceObservation | undefined> {
  const out = await aws('looked at the service', () =>
    ctx.aws.ecs.send(new DescribeServicesCommand({ cluster: ctx.settings.clusterArn, services: [serviceName(job.app, job.dep)] })),
  );
  const s = out.services?.[0];
  if (!s) return undefined;
  const primary = s.deployments?.find((d) => d.status === 'PRIMARY');
  return {
    status: s.status ?? 'MISSING',
    desiredCount: s.desiredCount ?? 0,
    runningCount: s.runningCount ?? 0,
    taskDefinition: s.taskDefinition ?? '',
    ...(primary
      ? {
          primary: {
            taskDefinition: primary.taskDefinition ?? '',
            ...(primary.rolloutState ? { rolloutState: primary.rolloutState } : {}),
            ...(primary.rolloutStateReason ? { rolloutStateReason: primary.rolloutStateReason } : {}),
          },
        }
      : {}),
  };
}

async function createService(ctx: EcsContext, job: EcsJob, record: Record<string, unknown>): Promise<void> {
  const s = ctx.settings;
  const web = webContainer(job.app);
  await aws('made the service', () =>
    ctx.aws.ecs.send(
      new CreateServiceCommand({
        cluster: s.clusterArn,
        serviceName: serviceName(job.app, job.dep),
        taskDefinition: String(record.taskDefinition),
        desiredCount: 1,
        launchType: 'FARGATE',
        clientToken: clientToken(job.op, job.phase, 'service'),
        networkConfiguration: {
          awsvpcConfiguration: { subnets: s.subnetIds, securityGroups: s.securityGroupIds, assignPublicIp: 'DISABLED' },
        },
        loadBalancers: [{ targetGroupArn: String(record.targetGroupArn), containerName: web.name, containerPort: web.port }],
        // Airflow runs one scheduler: stop the old task before starting the new one.
        deploymentConfiguration: {
          deploymentCircuitBreaker: { enable: true, rollback: true },
          ...(job.app === 'airflow'
            ? { minimumHealthyPercent: 0, maximumPercent: 100 }
            : { minimumHealthyPercent: 100, maximumPercent: 200 }),
        },
        healthCheckGracePeriodSeconds: job.app === 'airflow' ? 300 : 120,
        tags: deploymentTags(job.dep, job.org),
        propagateTags: 'SERVICE',
        enableECSManagedTags: true,
      }),
    ),
  );
}

export async function checkProvisioningInfrastructure(ctx: EcsContext, job: EcsJob, log?: LogRequest): Promise<JobStatus> {
  const record = await readRecord(job, job.phase);
  if (!record?.migrateTaskArn) return { state: 'failed', transient: false, message: 'The platform has no record of this job.' };
  const taskArn = String(record.migrateTaskArn);
  const withLog = async (status: JobStatus): Promise<JobStatus> => {
    const lines = log && (await taskLog(ctx, job, taskArn, log));
    return lines ? { ...status, log: lines } : status;
  };
  if (!record.serviceCreated) {
    const migration = taskStatus(await observeTask(ctx, taskArn), 'The database migration');
    if (migration.state !== 'succeeded') return withLog(migration);
    if (!record.certificateAttached) {
      const certificate = await attachCertificate(ctx, String(record.certificateArn), String(record.listenerArn), hostOf(ctx, job));
      if (certificate.state !== 'succeeded') return withLog(certificate);
      await writeRecord(job, { ...record, certificateAttached: 1 }, ctx.now());
    }
    await createService(ctx, job, record);
    await writeRecord(job, { ...record, serviceCreated: 1 }, ctx.now());
    // A cancel that read the record before the line above found no service to scale to 0: this check does it (decision 331).
    if (await readRecord(job, CANCEL_RECORD)) await scaleService(ctx, job, 0);
    return withLog({ state: 'running', nextCheckSeconds: SERVICE_MADE_CHECK_SECONDS });
  }
  return withLog(rolloutStatus(await observeService(ctx, job), String(record.taskDefinition), 1));
}

/** The record a cancel of provisioning_infrastructure leaves, before it reads the phase's. */
const CANCEL_RECORD = 'cancel';

/**
 * Stops the migration and scales the service to 0. It records the cancel before it reads
 * what the phase made, and the check that makes the service reads that record after it
 * records the service: whichever comes second scales it to 0 (decision 331).
 */
export async function cancelProvisioningInfrastructure(ctx: EcsContext, job: EcsJob): Promise<void> {
  await writeRecord({ ...job, phase: CANCEL_RECORD }, { app: job.app }, ctx.now());
  const record = await readRecord(job, job.phase);
  if (record?.migrateTaskArn) await stopOneOff(ctx, String(record.migrateTaskArn));
  if (record?.serviceCreated) await scaleService(ctx, job, 0);
}

/** Sets the service's desired count; a service gone or inactive is left as it is. */
export async function scaleService(ctx: EcsContext, job: EcsJob, desiredCount: number, taskDefinition?: string): Promise<void> {
  await unlessAbsent('scaled the service', ['ServiceNotFoundException', 'ServiceNotActiveException'], () =>
    ctx.aws.ecs.send(
      new UpdateServiceCommand({
        cluster: ctx.settings.clusterArn,
        service: serviceName(job.app, job.dep),
        desiredCount,
        ...(taskDefinition ? { taskDefinition } : {}),
      }),
    ),
  );
}

/** The deployment's target group's ARN, when it has one. */
async function targetGroupArn(ctx: EcsContext, job: EcsJob): Promise<string | undefined> {
  const out = await unlessAbsent('looked up the target group', ['TargetGroupNotFoundException'], () =>
    ctx.aws.elb.send(new DescribeTargetGroupsCommand({ Names: [targetGroupName(job.dep)] })),
  );
  return out?.TargetGroups?.[0]?.TargetGroupArn;
}

/** Deletes the target group; false while a rule still forwards to it. */
async function deleteTargetGroup(ctx: EcsContext, job: EcsJob): Promise<boolean> {
  const arn = await targetGroupArn(ctx, job);
  if (!arn) return true;
  try {
    await aws('deleted the target group', () => ctx.aws.elb.send(new DeleteTargetGroupCommand({ TargetGroupArn: arn })));
    return true;
  } catch (e) {
    if (errorName(e) === 'TransientPlatformError') return false;
    throw e;
  }
}

export async function startDestroyingInfrastructure(ctx: EcsContext, job: EcsJob): Promise<void> {
  const { clusterArn, listenerArns } = ctx.settings;
  await scaleService(ctx, job, 0);
  await unlessAbsent('deleted the service', ['ServiceNotFoundException', 'ServiceNotActiveException'], () =>
    ctx.aws.ecs.send(new DeleteServiceCommand({ cluster: clusterArn, service: serviceName(job.app, job.dep), force: true })),
  );
  const host = hostOf(ctx, job);
  for (const arn of listenerArns) {
    const rules = (await aws('read the routing rules', () => ctx.aws.elb.send(new DescribeRulesCommand({ ListenerArn: arn })))).Rules ?? [];
    const rule = hostRule(rules, host);
    if (rule?.RuleArn)
      await unlessAbsent('deleted the routing rule', ['RuleNotFoundException'], () =>
        ctx.aws.elb.send(new DeleteRuleCommand({ RuleArn: rule.RuleArn })),
      );
  }
  // The host's record, the certificate and its validation record (decisions 274, 322); one ACM still holds is deleted by a later check.
  await removeCertificate(ctx, host, listenerArns, { validationRecord: true });
  await deleteTargetGroup(ctx, job);
  const defs = await aws('listed the task definitions', () =>
    ctx.aws.ecs.send(new ListTaskDefinitionsCommand({ familyPrefix: serviceFamily(job.app, job.dep), status: 'ACTIVE' })),
  );
  for (const arn of defs.taskDefinitionArns ?? [])
    await unlessAbsent('deregistered a task definition', ['ClientException'], () =>
      ctx.aws.ecs.send(new DeregisterTaskDefinitionCommand({ taskDefinition: arn })),
    );
  if (defs.taskDefinitionArns?.length)
    await unlessAbsent('deleted the task definitions', ['ClientException'], () =>
      ctx.aws.ecs.send(new DeleteTaskDefinitionsCommand({ taskDefinitions: defs.taskDefinitionArns })),
    );
  await deleteSecret(ctx, envSecretName(job.dep));
  await deleteSecret(ctx, userSecretName(job.dep));
}

/**
 * Done when the service is inactive (or gone), the target group deleted and the certificate
 * too. Stopping the canceled create's execution does not stop the step it is running: that
 * step's start (task definitions, route, certificate) or its check (the service) can land
 * after this destroy's start took everything down. A check that finds the service active or
 * the target group there takes everything down again (a start's calls, past the 6 of a
 * check), and one that finds a certificate removes its validation record too, so a destroy
 * neither waits for ever on them nor leaves them behind (decision 331).
 */
export async function checkDestroyingInfrastructure(ctx: EcsContext, job: EcsJob): Promise<JobStatus> {
  const service = await observeService(ctx, job);
  if (service?.status === 'DRAINING') return { state: 'running', nextCheckSeconds: 15 };
  if (service?.status === 'ACTIVE' || (await targetGroupArn(ctx, job)) !== undefined) {
    await startDestroyingInfrastructure(ctx, job);
    return { state: 'running', nextCheckSeconds: 15 };
  }
  return (await removeCertificate(ctx, hostOf(ctx, job), ctx.settings.listenerArns, { validationRecord: true }))
    ? { state: 'succeeded' }
    : { state: 'running', nextCheckSeconds: 30 };
}
