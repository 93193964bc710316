/**
 * The local stack's health checker (decision 48): the AWS schedule's round
 * (functions/workflow/check-health.ts), run every HEALTH_CHECK_SECONDS in this process.
 * A round starts only when the one before has ended, so rounds never overlap.
 */
import { checkAll } from '../functions/app/deployment-health.js';
import { logger } from '../functions/lib/logger.js';
import { runAsFunction } from './current-function.js';

export interface HealthChecker {
  stop(): Promise<void>;
}

export function startHealthChecker(intervalSeconds: number): HealthChecker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const round = () => {
    running = runAsFunction('check-health', () => checkAll())
      .catch((e: unknown) => logger.error('health check round failed', { error: e as Error }))
      .finally(() => {
        if (!stopped) timer = setTimeout(round, intervalSeconds * 1000);
      });
  };
  timer = setTimeout(round, intervalSeconds * 1000);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
