/**
 * The environment of every Lambda function, in one place, under the names
 * functions/lib/config.ts declares (`ConfigVariable`). A function that does not use the
 * table, the state machine, the delivery queue or the webhook key does not get their
 * names either.
 */
import type { ConfigVariable } from '../../contract/config-variables.js';
import type { SWAGGER_UI_DIST } from '../../contract/docs-assets.js';
import { METRIC_SERVICE, metricNamespace } from '../../contract/metric-catalogue.js';
import type { Settings } from './settings.js';

/**
 * What Powertools reads itself (functions/lib/logger.ts, functions/lib/metrics.ts): the
 * `service` of every log line and metric, and the stage's metric namespace.
 */
export const POWERTOOLS_ENV = ['POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE'] as const;

/**
 * The hosting platform's driver and its settings (functions/adapters/platform/hosting-platform.ts), set only on the
 * functions that call the driver, and only when the stage runs `platform=ecs`.
 */
export const PLATFORM_ENV = ['PLATFORM', 'PLATFORM_SETTINGS'] as const;

/** The variables functions/lib/config.ts reads, the one functions/docs/docs-assets.ts reads, and Powertools'. */
export type FunctionEnvName = ConfigVariable | typeof SWAGGER_UI_DIST | (typeof POWERTOOLS_ENV)[number] | (typeof PLATFORM_ENV)[number];

export type FunctionEnv = Partial<Record<FunctionEnvName, string>>;

export interface EnvInputs {
  readonly settings: Settings;
  /** Set for functions that use the table. */
  readonly tableName?: string;
  /** Set for functions that start, stop or describe executions. */
  readonly stateMachineArn?: string;
  /** Set for functions that send to the webhook delivery queue. */
  readonly deliveryQueueUrl?: string;
  /** Set for functions that encrypt or decrypt with the webhook key. */
  readonly webhookKeyId?: string;
  /** Set for functions that verify or mint API keys: the Secrets Manager secret they are signed with. */
  readonly apiKeySecretArn?: string;
  /** Set for functions that verify the dashboard's tokens: the user pool's issuer and the dashboard's app client. */
  readonly userPool?: { readonly issuer: string; readonly clientId: string };
  /** The ECS driver's settings (JSON), for a function that calls the driver on a `platform=ecs` stage. */
  readonly platformSettings?: string;
  /** Variables naming files copied next to the bundle (see RUNTIME_FILES in functions.ts). */
  readonly files?: FunctionEnv;
}

export function functionEnv(i: EnvInputs): FunctionEnv {
  const env: FunctionEnv = {
    APP_DOMAIN: i.settings.appDomain,
    PHASE_DELAY_MS: String(i.settings.phaseDelayMs),
    RATE_LIMIT_PER_HOUR: String(i.settings.limits.perHour),
    RATE_LIMIT_PER_MINUTE: String(i.settings.limits.perMinute),
    CREATE_LIMIT_PER_HOUR: String(i.settings.limits.createsPerHour),
    PHASE_TIMEOUT_SECONDS: String(i.settings.phaseTimeoutSeconds),
    // Every function parses config.ts, so every one gets it: on AWS a webhook URL must be https.
    WEBHOOK_ALLOW_INSECURE: 'false',
    // No NODE_OPTIONS=--enable-source-maps: it would read the bundle's source map at every
    // cold start; the logger reads it only when it logs an error (functions/lib/source-stack.ts).
    POWERTOOLS_SERVICE_NAME: METRIC_SERVICE,
    POWERTOOLS_METRICS_NAMESPACE: metricNamespace(i.settings.stage),
  };
  if (i.tableName !== undefined) env.TABLE_NAME = i.tableName;
  if (i.stateMachineArn !== undefined) env.STATE_MACHINE_ARN = i.stateMachineArn;
  if (i.deliveryQueueUrl !== undefined) env.DELIVERY_QUEUE_URL = i.deliveryQueueUrl;
  if (i.webhookKeyId !== undefined) env.WEBHOOK_KMS_KEY_ID = i.webhookKeyId;
  if (i.apiKeySecretArn !== undefined) env.API_KEY_SECRET_ARN = i.apiKeySecretArn;
  if (i.userPool !== undefined) {
    env.DASHBOARD_TOKEN_ISSUER = i.userPool.issuer;
    env.DASHBOARD_CLIENT_ID = i.userPool.clientId;
  }
  if (i.platformSettings !== undefined) {
    env.PLATFORM = 'ecs';
    env.PLATFORM_SETTINGS = i.platformSettings;
  }
  return { ...env, ...i.files };
}
