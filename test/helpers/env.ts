/** The handler environment for every test worker (DynamoDB Local comes from global-setup.cjs). */
import { randomBytes } from 'node:crypto';

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
// Every test file sends from 127.0.0.1, and the failed-authentication counter is shared by
// the whole run: only auth-failure-limit.test.ts sets a limit a test can reach.
process.env.AUTH_FAILURE_LIMIT ??= '1000000';
