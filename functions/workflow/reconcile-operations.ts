/** Scheduled: ends operations whose workflow is gone or overdue (the local stack runs the same at start-up). */
import { hostingPlatform } from '../adapters/platform/hosting-platform.js';
import { reconcileOperations } from '../app/workflow-steps.js';
import { config } from '../lib/config.js';
import { logger } from '../lib/logger.js';
import { lambdaFunction } from '../middleware/invocation.js';

export const handler = lambdaFunction(async (): Promise<{ ended: string[] }> => {
  const { ended } = await reconcileOperations({ phaseTimeoutSeconds: config().phaseTimeoutSeconds, platform: hostingPlatform() });
  if (ended.length) logger.warn('reconciler ended stuck operations', { operation_ids: ended });
  return { ended };
});
