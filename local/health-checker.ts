/**
 * The local stack's health checker (decision 48): the AWS schedule's round
 * (functions/workflow/check-health.ts), run every HEALTH_CHECK_SECONDS in this process.
 */
import { checkAll } from '../functions/app/deployment-health.js';
import { type ScheduledRounds, startRounds } from './scheduled-rounds.js';

export const startHealthChecker = (intervalSeconds: number): ScheduledRounds =>
  startRounds({
    functionName: 'check-health',
    round: () => checkAll(),
    delayMs: () => intervalSeconds * 1000,
    failure: 'health check round failed',
  });
