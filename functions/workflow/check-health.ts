/**
 * Scheduled every HEALTH_CHECK_SECONDS (decision 48): one round of the health checker over
 * every ready deployment (decision 246). The local stack runs the same round on its own
 * timer (local/health-checker.ts).
 */
import { checkAll } from '../app/deployment-health.js';
import { logger } from '../lib/logger.js';
import { lambdaFunction } from '../middleware/invocation.js';

/** Visits at a time: each is I/O (two DynamoDB calls and the driver's), so one execution keeps many in flight. */
const CONCURRENCY = 64;

export const handler = lambdaFunction(async () => {
  const round = await checkAll({ concurrency: CONCURRENCY });
  logger.info('health check round', { checked: round.checked, results: round.results });
  return round;
});
