/** Scheduled: ends operations whose workflow is gone or overdue (the local stack runs the same at start-up). */
import { reconcileOperations } from '../core/workflow-steps.js';
import { config } from '../lib/config.js';
import { log } from '../lib/log.js';

export async function handler(): Promise<{ ended: string[] }> {
  const { ended } = await reconcileOperations({ timeoutSeconds: config().operationTimeoutSeconds });
  if (ended.length) log.warn('reconciler ended stuck operations', { operation_ids: ended });
  return { ended };
}
