/**
 * Everything a deployment of the stack can vary, read once from CDK context
 * (`-c stage=prod`, `-c domainName=...`) and validated, so a typo fails synth instead
 * of deploying something unintended. Stage differences live in STAGE_DEFAULTS only:
 * the stack itself is the same code for every stage.
 */

import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { CONFIG_DEFAULTS as d } from '../../contract/config-variables.js';
import { PHASE_TIMEOUT_MAX_SECONDS } from '../../contract/limits.js';

export const STAGES = ['dev', 'prod'] as const;
export type StageName = (typeof STAGES)[number];

export interface StageDefaults {
  /**
   * Table, log groups, key, queues, secret, user pool: what `cdk destroy` does to data.
   * Prod keeps them on update and delete but not on a failed first create
   * (RETAIN_ON_UPDATE_OR_DELETE), so a first deploy that fails leaves nothing behind.
   */
  readonly removalPolicy: RemovalPolicy;
  /**
   * Deletion protection on the table and the user pool. It also stops CloudFormation from
   * deleting them when a first create rolls back, so the first deploy of a new account
   * may turn it off (`-c deletionProtection=false`) and the next deploy on (docs/deploy.md).
   */
  readonly deletionProtection: boolean;
  readonly logRetention: RetentionDays;
  /** Stage-wide API Gateway throttle: a backstop behind the per-key limits the handlers enforce. */
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number };
  /** WAF web ACL (managed rule groups, a body-size rule, a per-IP rate rule), unless `-c waf=false`. */
  readonly waf: boolean;
  /**
   * Reserve each function's concurrency (functions.ts RESERVED_CONCURRENCY), so one busy
   * or attacked function cannot starve the others. Off in every stage: a new account's
   * limit (often 10) cannot reserve anything and the first deploy would fail;
   * `-c reservedConcurrency=true` turns it on once the account's quota allows it
   * (docs/deploy.md says how to check).
   */
  readonly reservedConcurrency: boolean;
}

const STAGE_DEFAULTS: Record<StageName, StageDefaults> = {
  dev: {
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
    logRetention: RetentionDays.ONE_WEEK,
    throttle: { rateLimit: 50, burstLimit: 100 },
    waf: false,
    reservedConcurrency: false,
  },
  prod: {
    removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    deletionProtection: true,
    logRetention: RetentionDays.ONE_YEAR,
    throttle: { rateLimit: 500, burstLimit: 1000 },
    waf: true,
    reservedConcurrency: false,
  },
};

export interface Settings extends StageDefaults {
  readonly stage: StageName;
  /** Domain the deployments' URLs live under (APP_DOMAIN). */
  readonly appDomain: string;
  /** Optional custom domain for the API, with an ACM certificate in the stack's region. */
  readonly customDomain?: { readonly domainName: string; readonly certificateArn: string };
  /** Requests per 5 minutes per client IP before the WAF answers 429. */
  readonly wafRateLimitPer5Min: number;
  /** Optional e-mail address subscribed to the alarm topic. */
  readonly alarmEmail?: string;
  readonly phaseDelayMs: number;
  /** How long one phase may take (PHASE_TIMEOUT_SECONDS). */
  readonly phaseTimeoutSeconds: number;
  readonly limits: { readonly perHour: number; readonly perMinute: number; readonly createsPerHour: number };
}

/** Context keys this app reads; anything else in `-c` is left to the CDK. */
export const CONTEXT_KEYS = [
  'stage',
  'appDomain',
  'domainName',
  'certificateArn',
  'waf',
  'wafRateLimit',
  'reservedConcurrency',
  'deletionProtection',
  'alarmEmail',
  'phaseDelayMs',
  'phaseTimeoutSeconds',
  'rateLimitPerHour',
  'rateLimitPerMinute',
  'createLimitPerHour',
] as const;
export type ContextKey = (typeof CONTEXT_KEYS)[number];

type Lookup = (key: ContextKey) => unknown;

export function settingsFromNode(node: Node): Settings {
  return readSettings((key) => node.tryGetContext(key));
}

export function readSettings(lookup: Lookup): Settings {
  const str = (key: ContextKey): string | undefined => {
    const v = lookup(key);
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      throw new Error(`context ${key} must be a string, got ${JSON.stringify(v)}`);
    return String(v);
  };
  const int = (key: ContextKey, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const raw = str(key);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new Error(`context ${key} must be an integer from ${min} to ${max}, got "${raw}"`);
    return n;
  };
  const bool = (key: ContextKey, fallback: boolean): boolean => {
    const raw = str(key);
    if (raw === undefined) return fallback;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw new Error(`context ${key} must be true or false, got "${raw}"`);
  };

  const stageRaw = str('stage') ?? 'dev';
  if (!(STAGES as readonly string[]).includes(stageRaw))
    throw new Error(`context stage must be one of ${STAGES.join(', ')}, got "${stageRaw}"`);
  const stage = stageRaw as StageName;
  const defaults = STAGE_DEFAULTS[stage];

  const domainName = str('domainName');
  const certificateArn = str('certificateArn');
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    throw new Error('context domainName and certificateArn go together: give both or neither');
  }
  if (certificateArn !== undefined && !/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[A-Za-z0-9-]+$/.test(certificateArn)) {
    throw new Error(`context certificateArn must be an ACM certificate ARN, got "${certificateArn}"`);
  }
  const appDomain = str('appDomain') ?? 'apps.example.com';
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(appDomain)) {
    throw new Error(`context appDomain must be a lower-case DNS name, got "${appDomain}"`);
  }
  const alarmEmail = str('alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+$/.test(alarmEmail))
    throw new Error(`context alarmEmail must be an e-mail address, got "${alarmEmail}"`);

  return {
    ...defaults,
    stage,
    appDomain,
    customDomain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
    waf: bool('waf', defaults.waf),
    reservedConcurrency: bool('reservedConcurrency', defaults.reservedConcurrency),
    deletionProtection: bool('deletionProtection', defaults.deletionProtection),
    // WAF's minimum for a rate-based rule is 10 per evaluation window.
    wafRateLimitPer5Min: int('wafRateLimit', 2000, 10),
    alarmEmail,
    phaseDelayMs: int('phaseDelayMs', d.PHASE_DELAY_MS, 0),
    phaseTimeoutSeconds: int('phaseTimeoutSeconds', d.PHASE_TIMEOUT_SECONDS, 60, PHASE_TIMEOUT_MAX_SECONDS),
    limits: {
      perHour: int('rateLimitPerHour', d.RATE_LIMIT_PER_HOUR, 1),
      perMinute: int('rateLimitPerMinute', d.RATE_LIMIT_PER_MINUTE, 1),
      createsPerHour: int('createLimitPerHour', d.CREATE_LIMIT_PER_HOUR, 1),
    },
  };
}

/** The CloudFormation stack name for a stage. */
export const stackName = (stage: StageName): string => `DeploymentApi-${stage}`;
