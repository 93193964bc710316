/**
 * Scheduled every minute (decisions 50, 260): one round of the hibernation scheduler over
 * the deployments due this minute. The local stack runs the same round on its own timer
 * (local/hibernation-scheduler.ts).
 */
import { runSchedule } from '../app/hibernation-scheduler.js';
import { logger } from '../lib/logger.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async () => {
  const round = await runSchedule();
  logger.info('hibernation schedule round', { minute: round.minute, due: round.due, results: round.results });
  return round;
});
