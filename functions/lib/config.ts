/**
 * Configuration, read from the environment once per process and validated so a
 * misconfigured function fails at cold start instead of on a customer's request.
 * The same variables are set by the CDK stack on Lambda and by `npm start` locally.
 */
import * as z from 'zod/mini';
import { type AppVersions, CONFIG_DEFAULTS, type ConfigEnv, type ConfigVariable } from '../../contract/config-variables.js';
import { PHASE_TIMEOUT_MAX_SECONDS } from '../../contract/limits.js';
import type { Assert, Equals } from '../../contract/type-equality.js';

// The names, the defaults and the phase timeout's bound are the deployment's too (contract/config-variables.ts, limits.ts).
export { CONFIG_DEFAULTS, type ConfigEnv, type ConfigVariable, PHASE_TIMEOUT_MAX_SECONDS };

const d = CONFIG_DEFAULTS;

const VERSION = /^\d+(\.\d+)*$/;
/** APP_VERSIONS: JSON, each app type's releases (decision 41). */
const appVersions = z.pipe(
  z.pipe(
    z._default(z.string(), d.APP_VERSIONS),
    z.transform((raw: string, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.issues.push({ code: 'custom', message: 'must be JSON', input: raw });
        return z.NEVER;
      }
    }),
  ),
  z.strictObject({
    airflow: z.array(z.string().check(z.regex(VERSION))).check(z.minLength(1)),
    superset: z.array(z.string().check(z.regex(VERSION))).check(z.minLength(1)),
  }),
);

/**
 * A number from its text. Not `z.coerce.number()`: reaching `z.coerce` bundles every coercing
 * schema (bigint, date, boolean, string) into every function.
 */
const numeric = () => z.pipe(z.string(), z.transform(Number));
const intFrom = (fallback: number) => z._default(z.pipe(numeric(), z.int().check(z.positive())), fallback);

const schema = z.object({
  TABLE_NAME: z._default(z.string().check(z.minLength(1)), d.TABLE_NAME),
  APP_DOMAIN: z._default(z.string().check(z.minLength(1)), d.APP_DOMAIN),
  STATE_MACHINE_ARN: z._default(z.string().check(z.minLength(1)), d.STATE_MACHINE_ARN),
  PHASE_DELAY_MS: z._default(z.pipe(numeric(), z.int().check(z.gte(0))), d.PHASE_DELAY_MS),
  SIMULATED_FAILURE: z._default(z.string(), d.SIMULATED_FAILURE),
  /** Decision 52: which driver runs the phases; `ecs` reads PLATFORM_SETTINGS (adapters/platform/ecs/settings.ts). */
  PLATFORM: z._default(z.enum(['simulated', 'ecs']), d.PLATFORM),
  PLATFORM_SETTINGS: z.optional(z.string()),
  RATE_LIMIT_PER_HOUR: intFrom(d.RATE_LIMIT_PER_HOUR),
  RATE_LIMIT_PER_MINUTE: intFrom(d.RATE_LIMIT_PER_MINUTE),
  CREATE_LIMIT_PER_HOUR: intFrom(d.CREATE_LIMIT_PER_HOUR),
  /** Well-formed but unknown keys one client address may send per 10-minute window before it is refused. */
  AUTH_FAILURE_LIMIT: intFrom(d.AUTH_FAILURE_LIMIT),
  /** Operation waits (GET /operations/{id}/wait) one organization may hold at once. */
  WAITS_PER_ORGANIZATION: intFrom(d.WAITS_PER_ORGANIZATION),
  /** API keys one organization may hold (not revoked, not rotated away): decision 130. */
  KEYS_PER_ORGANIZATION: intFrom(d.KEYS_PER_ORGANIZATION),
  /** How long one phase may take (decision: real platform steps take tens of minutes); at most 3 days. */
  PHASE_TIMEOUT_SECONDS: z.pipe(intFrom(d.PHASE_TIMEOUT_SECONDS), z.number().check(z.lte(PHASE_TIMEOUT_MAX_SECONDS))),
  /** When a driver does not say when to ask again about a running job. */
  PHASE_CHECK_SECONDS: intFrom(d.PHASE_CHECK_SECONDS),
  /** Decision 48: how often every ready, awake deployment's health is checked. */
  HEALTH_CHECK_SECONDS: intFrom(d.HEALTH_CHECK_SECONDS),
  /** JSON: the supported releases of each app type, e.g. {"airflow": ["2.10.5"], "superset": ["5.0.0"]}. */
  APP_VERSIONS: appVersions,
  /** `true` only where receivers may be on this machine or network (the local stack; decision 38). */
  WEBHOOK_ALLOW_INSECURE: z._default(z.enum(['true', 'false']), d.WEBHOOK_ALLOW_INSECURE),
  /** Seconds before each retry of a failed delivery, comma-separated. */
  WEBHOOK_RETRY_SCHEDULE: z._default(
    z.string().check(z.regex(/^\d+(,\d+)*$/, 'must be whole seconds, comma-separated')),
    d.WEBHOOK_RETRY_SCHEDULE,
  ),
  /** On AWS: the Secrets Manager secret that holds it, read once per process (adapters/secrets-manager/key-signing-secret.ts). */
  API_KEY_SECRET_ARN: z.optional(z.string()),
  /** On AWS: the KMS key that seals webhook secrets (the creating function may encrypt, only the deliverer decrypt). */
  WEBHOOK_KMS_KEY_ID: z.optional(z.string()),
  /** On AWS: the SQS queue of deliveries. */
  DELIVERY_QUEUE_URL: z.optional(z.string()),
  /** The user pool that signs the dashboard's users in: its issuer URL (the JWKS is below it) and the dashboard's app client. */
  // Not `z.url()`, whose checks (hostnames, protocols, normalising) every function would bundle for this one variable.
  DASHBOARD_TOKEN_ISSUER: z.optional(z.string().check(z.refine((v) => URL.canParse(v), 'must be a URL'))),
  DASHBOARD_CLIENT_ID: z.optional(z.string().check(z.minLength(1))),
});

/** This module reads exactly the variables the deployment sets (contract/config-variables.ts). */
export type SchemaReadsConfigVariables = Assert<Equals<keyof typeof schema.shape, ConfigVariable>>;

export type Config = Readonly<{
  tableName: string;
  appDomain: string;
  stateMachineArn: string;
  phaseDelayMs: number;
  simulatedFailure: string;
  platform: 'simulated' | 'ecs';
  platformSettings: string | undefined;
  limits: Readonly<{ perHour: number; perMinute: number; createsPerHour: number }>;
  /** Failed authentications per client address and window (middleware/auth-failure-limit.ts). */
  authFailureLimit: number;
  waitsPerOrganization: number;
  keysPerOrganization: number;
  apiKeys: Readonly<{ secretArn: string | undefined }>;
  phaseTimeoutSeconds: number;
  phaseCheckSeconds: number;
  healthCheckSeconds: number;
  appVersions: AppVersions;
  webhooks: Readonly<{
    allowInsecure: boolean;
    retrySchedule: readonly number[];
    kmsKeyId: string | undefined;
    queueUrl: string | undefined;
  }>;
  dashboard: Readonly<{ issuer: string | undefined; clientId: string | undefined }>;
}>;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  return Object.freeze({
    tableName: e.TABLE_NAME,
    appDomain: e.APP_DOMAIN,
    stateMachineArn: e.STATE_MACHINE_ARN,
    phaseDelayMs: e.PHASE_DELAY_MS,
    simulatedFailure: e.SIMULATED_FAILURE,
    platform: e.PLATFORM,
    platformSettings: e.PLATFORM_SETTINGS,
    limits: Object.freeze({
      perHour: e.RATE_LIMIT_PER_HOUR,
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      createsPerHour: e.CREATE_LIMIT_PER_HOUR,
    }),
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    waitsPerOrganization: e.WAITS_PER_ORGANIZATION,
    keysPerOrganization: e.KEYS_PER_ORGANIZATION,
    apiKeys: Object.freeze({ secretArn: e.API_KEY_SECRET_ARN }),
    phaseTimeoutSeconds: e.PHASE_TIMEOUT_SECONDS,
    phaseCheckSeconds: e.PHASE_CHECK_SECONDS,
    healthCheckSeconds: e.HEALTH_CHECK_SECONDS,
    appVersions: e.APP_VERSIONS,
    webhooks: Object.freeze({
      allowInsecure: e.WEBHOOK_ALLOW_INSECURE === 'true',
      retrySchedule: Object.freeze(e.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number)),
      kmsKeyId: e.WEBHOOK_KMS_KEY_ID,
      queueUrl: e.DELIVERY_QUEUE_URL,
    }),
    dashboard: Object.freeze({ issuer: e.DASHBOARD_TOKEN_ISSUER, clientId: e.DASHBOARD_CLIENT_ID }),
  });
}

let cached: Config | undefined;
/** The process-wide configuration (read on first use). */
export function config(): Config {
  cached ??= readConfig();
  return cached;
}
