/**
 * The configuration variables every function reads (lib/config.ts validates them), as the
 * deployment sets them: their names and the value of each a process does not set. The CDK
 * app (infra/aws/settings.ts, function-env.ts), the local host and the tests set them by
 * these names. Plain values, so importing them costs a bundle nothing.
 */
import type { AppType } from './vocabulary.js';

/** The supported releases of each app type (configuration APP_VERSIONS). */
export type AppVersions = Readonly<Record<AppType, readonly string[]>>;

/** Decision 41: the releases offered when APP_VERSIONS does not say (lib/config.ts reads it). */
export const DEFAULT_APP_VERSIONS: AppVersions = {
  airflow: ['2.10.5', '2.11.0', '3.0.6', '3.1.3'],
  superset: ['4.1.2', '5.0.0'],
};

/**
 * The value of each variable a process does not set: the local host's, the tests' and
 * the CDK app's defaults (infra/aws/settings.ts) are these.
 */
export const CONFIG_DEFAULTS = {
  TABLE_NAME: 'deployments-local',
  APP_DOMAIN: 'apps.localhost',
  STATE_MACHINE_ARN: 'arn:aws:states:us-east-1:000000000000:stateMachine:operation',
  PHASE_DELAY_MS: 2000,
  SIMULATED_FAILURE: '',
  /** Decision 52: the hosting platform behind the phases, `simulated` or `ecs`. */
  PLATFORM: 'simulated',
  RATE_LIMIT_PER_HOUR: 1000,
  RATE_LIMIT_PER_MINUTE: 100,
  CREATE_LIMIT_PER_HOUR: 10,
  AUTH_FAILURE_LIMIT: 20,
  WAITS_PER_ORGANIZATION: 10,
  KEYS_PER_ORGANIZATION: 100,
  /** 6 hours. */
  PHASE_TIMEOUT_SECONDS: 6 * 3600,
  PHASE_CHECK_SECONDS: 60,
  HEALTH_CHECK_SECONDS: 60,
  WEBHOOK_ALLOW_INSECURE: 'false',
  WEBHOOK_RETRY_SCHEDULE: '5,300,1800,7200,18000,36000',
  APP_VERSIONS: /* @__PURE__ */ JSON.stringify(DEFAULT_APP_VERSIONS),
} as const;

/** The name of every variable the functions read (lib/config.ts checks its schema names exactly these). */
export type ConfigVariable =
  | keyof typeof CONFIG_DEFAULTS
  | 'API_KEY_SECRET_ARN'
  | 'WEBHOOK_KMS_KEY_ID'
  | 'DELIVERY_QUEUE_URL'
  | 'DASHBOARD_TOKEN_ISSUER'
  | 'DASHBOARD_CLIENT_ID'
  | 'PLATFORM_SETTINGS';
/** Values for some of the variables, as a process environment holds them. */
export type ConfigEnv = Partial<Record<ConfigVariable, string>>;
