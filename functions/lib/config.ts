/**
 * Configuration, read from the environment once per process and validated so a
 * misconfigured function fails at cold start instead of on a customer's request.
 * The same variables are set by the CDK stack on Lambda and by `npm start` locally.
 */
import * as z from 'zod/mini';
import type { AppVersions } from '../core/deployment-config.js';

/** A phase may last 6 hours by default, and 3 days at most: the workflow's own limit (8 days) covers every phase of an operation. */
export const PHASE_TIMEOUT_DEFAULT_SECONDS = 6 * 3600;
export const PHASE_TIMEOUT_MAX_SECONDS = 3 * 24 * 3600;

/** Decision 41: the releases each app type may run, when APP_VERSIONS does not say. */
export const APP_VERSIONS_DEFAULT: AppVersions = {
  airflow: ['2.10.5', '2.11.0', '3.0.6', '3.1.3'],
  superset: ['4.1.2', '5.0.0'],
};

const VERSION = /^\d+(\.\d+)*$/;
const appVersions = z.pipe(
  z.pipe(
    z.string(),
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

const intFrom = (fallback: number) => z._default(z.pipe(z.coerce.number(), z.int().check(z.positive())), fallback);

const schema = z.object({
  TABLE_NAME: z._default(z.string().check(z.minLength(1)), 'deployments-local'),
  APP_DOMAIN: z._default(z.string().check(z.minLength(1)), 'apps.localhost'),
  STATE_MACHINE_ARN: z._default(z.string().check(z.minLength(1)), 'arn:aws:states:us-east-1:000000000000:stateMachine:operation'),
  PHASE_DELAY_MS: z._default(z.pipe(z.coerce.number(), z.int().check(z.gte(0))), 2000),
  SIMULATED_FAILURE: z._default(z.string(), ''),
  RATE_LIMIT_PER_HOUR: intFrom(1000),
  RATE_LIMIT_PER_MINUTE: intFrom(100),
  CREATE_LIMIT_PER_HOUR: intFrom(10),
  /** Well-formed but unknown keys one client address may send per 10-minute window before it is refused. */
  AUTH_FAILURE_LIMIT: intFrom(20),
  /** How long one phase may take (decision: real platform steps take tens of minutes); at most 3 days. */
  PHASE_TIMEOUT_SECONDS: z.pipe(intFrom(PHASE_TIMEOUT_DEFAULT_SECONDS), z.number().check(z.lte(PHASE_TIMEOUT_MAX_SECONDS))),
  /** When a driver does not say when to ask again about a running job. */
  PHASE_CHECK_SECONDS: intFrom(60),
  /** JSON: the supported releases of each app type, e.g. {"airflow": ["2.10.5"], "superset": ["5.0.0"]}. */
  APP_VERSIONS: z.optional(appVersions),
  /** Decision 38: `true` only where receivers may be on this machine or network (the local stack). */
  WEBHOOK_ALLOW_INSECURE: z._default(z.enum(['true', 'false']), 'false'),
  /** Seconds before each retry of a failed delivery, comma-separated. */
  WEBHOOK_RETRY_SCHEDULE: z._default(
    z.string().check(z.regex(/^\d+(,\d+)*$/, 'must be whole seconds, comma-separated')),
    '5,300,1800,7200,18000,36000',
  ),
  /** The key (base64, 32 bytes) webhook secrets are sealed with locally; only code that signs or stores them has it. */
  WEBHOOK_SECRET_KEY: z.optional(z.string()),
  /** On AWS: the KMS key that seals webhook secrets (the creating function may encrypt, only the deliverer decrypt). */
  WEBHOOK_KMS_KEY_ID: z.optional(z.string()),
  /** On AWS: the SQS queue of deliveries (locally the queue is kept in the table). */
  DELIVERY_QUEUE_URL: z.optional(z.string()),
  /** The user pool that signs the dashboard's users in: its issuer URL (the JWKS is below it) and the dashboard's app client. */
  DASHBOARD_TOKEN_ISSUER: z.optional(z.url()),
  DASHBOARD_CLIENT_ID: z.optional(z.string().check(z.minLength(1))),
});

export type Config = Readonly<{
  tableName: string;
  appDomain: string;
  stateMachineArn: string;
  phaseDelayMs: number;
  simulatedFailure: string;
  limits: Readonly<{ perHour: number; perMinute: number; createsPerHour: number }>;
  /** Failed authentications per client address and window (middleware/auth-failure-limit.ts). */
  authFailureLimit: number;
  phaseTimeoutSeconds: number;
  phaseCheckSeconds: number;
  appVersions: AppVersions;
  webhooks: Readonly<{
    allowInsecure: boolean;
    retrySchedule: readonly number[];
    secretKey: string | undefined;
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
    limits: Object.freeze({
      perHour: e.RATE_LIMIT_PER_HOUR,
      perMinute: e.RATE_LIMIT_PER_MINUTE,
      createsPerHour: e.CREATE_LIMIT_PER_HOUR,
    }),
    authFailureLimit: e.AUTH_FAILURE_LIMIT,
    phaseTimeoutSeconds: e.PHASE_TIMEOUT_SECONDS,
    phaseCheckSeconds: e.PHASE_CHECK_SECONDS,
    appVersions: e.APP_VERSIONS ?? APP_VERSIONS_DEFAULT,
    webhooks: Object.freeze({
      allowInsecure: e.WEBHOOK_ALLOW_INSECURE === 'true',
      retrySchedule: Object.freeze(e.WEBHOOK_RETRY_SCHEDULE.split(',').map(Number)),
      secretKey: e.WEBHOOK_SECRET_KEY,
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
