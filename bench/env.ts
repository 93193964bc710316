/**
 * The benchmark's environment, set before any other module loads (run.ts imports this
 * first): the logger reads LOG_LEVEL when it is created, config() and the SDK clients
 * read the rest at first use. The local engines' endpoints are set once they listen.
 */
Object.assign(process.env, {
  TABLE_NAME: 'bench-deployments',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  // Nor a metrics line per request (functions/lib/metrics.ts): Powertools still records them.
  POWERTOOLS_METRICS_DISABLED: process.env.POWERTOOLS_METRICS_DISABLED ?? 'true',
  // Webhooks to a receiver on loopback, as under npm start (decision 38).
  WEBHOOK_ALLOW_INSECURE: 'true',
  // The request rows measure calls and speed, not the limits: raised far out of reach.
  RATE_LIMIT_PER_HOUR: '1000000000',
  RATE_LIMIT_PER_MINUTE: '1000000000',
  CREATE_LIMIT_PER_HOUR: '1000000000',
  // Workflows of the request rows run without the simulated platform's pauses.
  PHASE_DELAY_MS: '0',
});
delete process.env.AWS_SESSION_TOKEN;
delete process.env.AWS_PROFILE;
