/**
 * The platform's context (`-c platform=ecs -c domain=… -c hostedZoneId=…`), read apart from
 * the API's settings (settings.ts) so that without `platform=ecs` nothing here is read and
 * the synthesized templates are those of the simulated platform, byte for byte.
 */
import type { StageName } from '../settings.js';

export const PLATFORMS = ['simulated', 'ecs'] as const;
export type PlatformName = (typeof PLATFORMS)[number];

/** Context keys the platform stack reads (only with `platform=ecs`, but `platform` itself). */
export const PLATFORM_CONTEXT_KEYS = ['platform', 'domain', 'hostedZoneId', 'albShards', 'natGateways', 'containerInsights'] as const;
export type PlatformContextKey = (typeof PLATFORM_CONTEXT_KEYS)[number];

/** An ALB holds at most 100 target groups (a hard quota); 4 shards serve 100 deployments at the default certificate quota (decision 282). */
export const MAX_ALB_SHARDS = 10;

export interface PlatformSettings {
  readonly stage: StageName;
  /** The deployments' URLs are `https://<app>.<id>.<domain>`: the API's APP_DOMAIN becomes it. */
  readonly domain: string;
  /** The public Route 53 zone of `domain` (no lookup at synth: the build stays offline). */
  readonly hostedZoneId: string;
  readonly albShards: number;
  /** Decision 280: one per AZ in prod (an AZ outage leaves the other AZ's tasks online), one in dev. */
  readonly natGateways: number;
  /** Decision 284: off unless asked for; the AWS/ECS service metrics the driver reads are free. */
  readonly containerInsights: boolean;
  /** Decision 283: Aurora Serverless v2 capacity, in ACU; 0 pauses the cluster when idle. */
  readonly dbMinCapacity: number;
  readonly dbMaxCapacity: number;
  /** Prod keeps the database, the file system and the repositories when the stack goes. */
  readonly retainData: boolean;
}

type Lookup = (key: PlatformContextKey | 'appDomain') => unknown;

const text = (lookup: Lookup, key: PlatformContextKey | 'appDomain'): string | undefined => {
  const v = lookup(key);
  return v === undefined || v === null || v === '' ? undefined : String(v);
};

/** Which platform the context asks for (`simulated` unless `-c platform=ecs`). */
export function platformOf(lookup: Lookup): PlatformName {
  const raw = text(lookup, 'platform') ?? 'simulated';
  if (!(PLATFORMS as readonly string[]).includes(raw))
    throw new Error(`context platform must be one of ${PLATFORMS.join(', ')}, got "${raw}"`);
  return raw as PlatformName;
}

/** The platform stack's settings; only called with `platform=ecs`. */
export function readPlatformSettings(stage: StageName, lookup: Lookup): PlatformSettings {
  const appDomain = text(lookup, 'appDomain');
  const domain = text(lookup, 'domain') ?? appDomain;
  if (domain === undefined) throw new Error('context domain is required with platform=ecs: the deployments are served under it');
  if (appDomain !== undefined && appDomain !== domain)
    throw new Error(`context domain ("${domain}") and appDomain ("${appDomain}") must agree: the deployments' URLs are under the domain`);
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain))
    throw new Error(`context domain must be a lower-case DNS name, got "${domain}"`);
  const hostedZoneId = text(lookup, 'hostedZoneId');
  if (hostedZoneId === undefined || !/^Z[A-Z0-9]{1,31}$/.test(hostedZoneId))
    throw new Error(`context hostedZoneId must be the Route 53 hosted zone id of ${domain} (Z…), got "${hostedZoneId ?? ''}"`);
  const int = (key: PlatformContextKey, fallback: number, min: number, max: number): number => {
    const raw = text(lookup, key);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new Error(`context ${key} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
  };
  const insights = text(lookup, 'containerInsights') ?? 'false';
  if (insights !== 'true' && insights !== 'false') throw new Error(`context containerInsights must be true or false, got "${insights}"`);
  const prod = stage === 'prod';
  return {
    stage,
    domain,
    hostedZoneId,
    albShards: int('albShards', 1, 1, MAX_ALB_SHARDS),
    natGateways: int('natGateways', prod ? 2 : 1, 1, 2),
    containerInsights: insights === 'true',
    dbMinCapacity: prod ? 0.5 : 0,
    dbMaxCapacity: 16,
    retainData: prod,
  };
}
