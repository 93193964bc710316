/**
 * The environment every local process gets (the stack, the key CLI, `npm run invoke`,
 * the tests): the same variables the CDK stack sets on Lambda, pointed at local engines.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dataDirOf, readStackFile } from '../cli-kit/stack-file.js';
import { CONFIG_DEFAULTS, type ConfigEnv } from '../functions/lib/config.js';
import { ID_TOKEN_SECONDS } from '../infra/user-pool-settings.js';
import { USER_POOL_PATH } from './user-pool.js';

export interface LocalSettings {
  /** The API's address; loopback (IPv4 and IPv6) unless HOST opts in to more. */
  host: string | undefined;
  port: number;
  dynamodbPort: number;
  dataDir: string;
  /** The lifetime of the emulated user pool's tokens (an hour, as Cognito's; tests shorten it). */
  dashboardTokenSeconds: number;
}

export function localSettings(env: NodeJS.ProcessEnv = process.env): LocalSettings {
  const port = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number, got "${raw}"`);
    return n;
  };
  const positive = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of seconds, got "${raw}"`);
    return n;
  };
  return {
    host: env.HOST || undefined,
    port: port('PORT', 3000),
    dynamodbPort: port('DYNAMODB_PORT', 8000),
    dataDir: dataDirOf(env),
    dashboardTokenSeconds: positive('DASHBOARD_TOKEN_SECONDS', ID_TOKEN_SECONDS),
  };
}

/**
 * Where the operator tools (bin/keys.ts, bin/users.ts, bin/invoke.ts) reach the running
 * stack: PORT / DYNAMODB_PORT when set, else what `npm start` wrote in DATA_DIR's stack
 * file (decision 165), else the default ports.
 */
export function stackEndpoints(
  settings: LocalSettings,
  env: NodeJS.ProcessEnv = process.env,
): { dynamodb: string; userPool: string; credentials: { accessKeyId: string; secretAccessKey: string } } {
  const running = readStackFile(settings.dataDir);
  const given = (name: string) => env[name] !== undefined && env[name] !== '';
  const dynamodb = (!given('DYNAMODB_PORT') && running?.dynamodb_endpoint) || `http://127.0.0.1:${settings.dynamodbPort}`;
  const userPool = (!given('PORT') && running?.user_pool_endpoint) || `http://127.0.0.1:${settings.port}${USER_POOL_PATH}/`;
  // Decision 236: the running stack's engines take its credentials alone; other engines, the environment's.
  const ours = running && (running.dynamodb_endpoint === dynamodb || running.user_pool_endpoint === userPool);
  const own = ours ? running.credentials : undefined;
  return {
    dynamodb,
    userPool,
    credentials: {
      accessKeyId: own?.access_key_id || env.AWS_ACCESS_KEY_ID || 'local',
      secretAccessKey: own?.secret_access_key || env.AWS_SECRET_ACCESS_KEY || 'local',
    },
  };
}

export const LOCAL_TABLE_NAME = CONFIG_DEFAULTS.TABLE_NAME;

/** The handlers' variables (functions/lib/config.ts) and the SDK's, which point it at the local engines. */
type LocalEnv = ConfigEnv &
  Partial<
    Record<
      | 'AWS_REGION'
      | 'AWS_ACCESS_KEY_ID'
      | 'AWS_SECRET_ACCESS_KEY'
      | 'AWS_ENDPOINT_URL_DYNAMODB'
      | 'AWS_ENDPOINT_URL_SFN'
      | 'AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER'
      | 'POWERTOOLS_METRICS_DISABLED'
      | `AWS_ENDPOINT_URL_${string}`,
      string
    >
  >;

/**
 * Sets the handler environment in this process. `owned` values are the local engines
 * this process started and always win; the rest are defaults a user may override.
 */
export function applyLocalEnv(settings: LocalSettings, owned: LocalEnv = {}): void {
  const defaults: LocalEnv = {
    TABLE_NAME: LOCAL_TABLE_NAME,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${settings.dynamodbPort}`,
    // Receivers run on this machine while developing (decision 38).
    WEBHOOK_ALLOW_INSECURE: 'true',
    // The metrics' lines (two more per request) would drown the log in a terminal;
    // POWERTOOLS_METRICS_DISABLED=false writes them, as on AWS (decision 182).
    POWERTOOLS_METRICS_DISABLED: 'true',
  };
  for (const [k, v] of Object.entries(defaults)) process.env[k] ??= v;
  // Keys the keys CLI mints must verify in the stack: both read the secret from the same data folder.
  process.env.API_KEY_SECRET ??= localSecretKey(settings.dataDir, 'api-key-secret.key', 'API_KEY_SECRET');
  Object.assign(process.env, owned);
}

/**
 * A local secret (32 random bytes, base64): the variable `variable` when set, else one kept
 * owner-only under the data folder so what it seals or signs stays valid after a restart
 * (in memory: a fresh one each run). The key webhook secrets are sealed with, the secret
 * API keys are signed with.
 */
export function localSecretKey(dataDir: string | null, name = 'webhook-secret.key', variable = 'WEBHOOK_SECRET_KEY'): string {
  const set = process.env[variable];
  if (set) return set;
  if (!dataDir) return randomBytes(32).toString('base64');
  const file = path.join(dataDir, name);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  }
  return readFileSync(file, 'utf8').trim();
}
