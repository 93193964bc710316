/** The handler environment of every lane's test files (DynamoDB Local comes from global-setup.cjs, for the engine lanes). */
import { randomBytes } from 'node:crypto';
import { LOCAL_CLIENT_ID, LOCAL_USER_POOL_ID, USER_POOL_PATH } from '../../local/user-pool.js';

process.env.TABLE_NAME = 'deployments-test';
process.env.AWS_REGION = 'us-east-1';
process.env.AWS_ACCESS_KEY_ID = 'local';
process.env.AWS_SECRET_ACCESS_KEY = 'local';
// Every level the code logs at (nothing logs below INFO today; DEBUG keeps a future debug
// line in the scan), written to the run's log files, not the terminal (capture-logs.ts).
process.env.LOG_LEVEL = 'DEBUG';
process.env.PHASE_DELAY_MS ??= '0';
process.env.APP_DOMAIN = 'apps.test.example';
// Webhooks (decision 38): receivers run on this machine in the tests, as under npm start.
process.env.WEBHOOK_ALLOW_INSECURE = 'true';
process.env.WEBHOOK_SECRET_KEY = randomBytes(32).toString('base64');
// New API keys are signed with it (core/api-keys.ts); the whole worker shares it.
process.env.API_KEY_SECRET = randomBytes(32).toString('base64');
// Every test file sends from 127.0.0.1, and the failed-authentication counter is shared by
// the whole run: only auth-failure-limit.test.ts sets a limit a test can reach.
process.env.AUTH_FAILURE_LIMIT ??= '1000000';
// The dashboard API's user pool (test/helpers/dashboard-session.ts) listens on this worker's
// own port, so its issuer is known before anything reads the configuration, which is read once.
// Only the engine lanes reserve the ports (global-setup.cjs); the others have no user pool.
const dashboardPort = process.env.TEST_DASHBOARD_PORTS?.split(',')[Number(process.env.JEST_WORKER_ID ?? '1') - 1];
if (dashboardPort) {
  process.env.DASHBOARD_TOKEN_ISSUER = `http://127.0.0.1:${dashboardPort}${USER_POOL_PATH}/${LOCAL_USER_POOL_ID}`;
  process.env.DASHBOARD_CLIENT_ID = LOCAL_CLIENT_ID;
  process.env.AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER = `http://127.0.0.1:${dashboardPort}${USER_POOL_PATH}/`;
}
