/**
 * The ECS platform's checks for the smoke suite (docs/platform.md), run only against a stage deployed
 * with `-c platform=ecs`: given that stage's PLATFORM_SETTINGS (the platform stack's SSM
 * parameter) and AWS credentials for its account, they look in AWS for what a create made and a
 * destroy removed, and time the create as the real platform took it.
 */
import { DescribeServicesCommand, ECSClient, ListServicesCommand, type Service } from '@aws-sdk/client-ecs';
import {
  DescribeRulesCommand,
  DescribeTargetHealthCommand,
  ElasticLoadBalancingV2Client,
  type Rule,
} from '@aws-sdk/client-elastic-load-balancing-v2';

/** What the checks read of PLATFORM_SETTINGS. */
interface Settings {
  readonly region: string;
  readonly clusterArn: string;
  readonly listenerArns: readonly string[];
}

export interface PlatformChecks {
  /** After a create succeeded: one ACTIVE service tagged with the deployment, its rollout done, a rule for the URL's host, a healthy target. */
  afterCreate(deploymentId: string, url: string): Promise<string[]>;
  /** After a destroy succeeded: no ACTIVE service with the tag, no rule for the host. */
  afterDestroy(deploymentId: string, url: string): Promise<string[]>;
}

export class PlatformCheckFailure extends Error {}

export function parsePlatformSettings(json: string): Settings {
  const s = JSON.parse(json) as Partial<Settings>;
  if (typeof s.region !== 'string' || typeof s.clusterArn !== 'string' || !Array.isArray(s.listenerArns))
    throw new PlatformCheckFailure('PLATFORM_SETTINGS lacks region, clusterArn or listenerArns: is it the platform stack’s SSM parameter?');
  return s as Settings;
}

export function platformChecks(settings: Settings): PlatformChecks {
  const ecs = new ECSClient({ region: settings.region });
  const elb = new ElasticLoadBalancingV2Client({ region: settings.region });

  const servicesOf = async (deploymentId: string): Promise<Service[]> => {
    const found: Service[] = [];
    let nextToken: string | undefined;
    do {
      const page = await ecs.send(new ListServicesCommand({ cluster: settings.clusterArn, nextToken, maxResults: 10 }));
      nextToken = page.nextToken;
      if (!page.serviceArns?.length) continue;
      const described = await ecs.send(
        new DescribeServicesCommand({ cluster: settings.clusterArn, services: page.serviceArns, include: ['TAGS'] }),
      );
      found.push(...(described.services ?? []).filter((s) => s.tags?.some((t) => t.key === 'deployment' && t.value === deploymentId)));
    } while (nextToken);
    return found;
  };

  const rulesFor = async (host: string): Promise<Rule[]> => {
    const rules: Rule[] = [];
    for (const listener of settings.listenerArns) {
      let marker: string | undefined;
      do {
        const page = await elb.send(new DescribeRulesCommand({ ListenerArn: listener, Marker: marker }));
        marker = page.NextMarker;
        rules.push(
          ...(page.Rules ?? []).filter((r) =>
            r.Conditions?.some((c) => c.Field === 'host-header' && (c.HostHeaderConfig?.Values ?? c.Values ?? []).includes(host)),
          ),
        );
      } while (marker);
    }
    return rules;
  };

  return {
    async afterCreate(deploymentId, url) {
      const host = new URL(url).host;
      const services = (await servicesOf(deploymentId)).filter((s) => s.status === 'ACTIVE');
      if (services.length !== 1)
        throw new PlatformCheckFailure(`${services.length} ACTIVE services tagged deployment=${deploymentId}, not 1`);
      const [service] = services;
      const primary = service!.deployments?.find((d) => d.status === 'PRIMARY');
      if ((service!.desiredCount ?? 0) < 1 || primary?.rolloutState !== 'COMPLETED')
        throw new PlatformCheckFailure(
          `service ${service!.serviceName}: desired ${service!.desiredCount}, rollout ${primary?.rolloutState}`,
        );
      const rules = await rulesFor(host);
      const targetGroup = rules[0]?.Actions?.find((a) => a.Type === 'forward')?.TargetGroupArn;
      if (rules.length !== 1 || !targetGroup)
        throw new PlatformCheckFailure(`${rules.length} listener rules for host ${host}, not 1 forwarding`);
      const health = await elb.send(new DescribeTargetHealthCommand({ TargetGroupArn: targetGroup }));
      const healthy = (health.TargetHealthDescriptions ?? []).filter((t) => t.TargetHealth?.State === 'healthy').length;
      if (healthy < 1) throw new PlatformCheckFailure(`no healthy target in ${targetGroup}`);
      const answer = await fetch(url, { redirect: 'manual' });
      if (answer.status >= 500) throw new PlatformCheckFailure(`GET ${url} answered ${answer.status}`);
      return [
        `ECS: service ${service!.serviceName} ACTIVE, rollout COMPLETED, ${service!.runningCount} running`,
        `ALB: a rule for ${host}, ${healthy} healthy target(s); GET ${url} answered ${answer.status}`,
      ];
    },
    async afterDestroy(deploymentId, url) {
      const host = new URL(url).host;
      const active = (await servicesOf(deploymentId)).filter((s) => s.status === 'ACTIVE');
      if (active.length) throw new PlatformCheckFailure(`service ${active[0]!.serviceName} still ACTIVE after the destroy`);
      const rules = await rulesFor(host);
      if (rules.length) throw new PlatformCheckFailure(`a listener rule for ${host} remains after the destroy`);
      return [`ECS and ALB: nothing of ${deploymentId} remains`];
    },
  };
}
