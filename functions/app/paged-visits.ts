/**
 * A round over one sparse index (the health checker's, the hibernation scheduler's): page by
 * page, each page's items visited `concurrency` at a time, each visit's result counted. A
 * visit that fails is logged and left to the next round.
 */
import { logger } from '../lib/logger.js';

export interface Page<T> {
  items: T[];
  next?: Record<string, unknown>;
}

export async function visitPages<T extends { deploymentId: string }, R extends string>(opts: {
  page: (after: Record<string, unknown> | undefined) => Promise<Page<T>>;
  visit: (item: T) => Promise<R>;
  concurrency: number;
  /** What a failed visit's log line says. */
  failure: string;
}): Promise<{ visited: number; results: Partial<Record<R, number>> }> {
  const out: { visited: number; results: Partial<Record<R, number>> } = { visited: 0, results: {} };
  let next: Record<string, unknown> | undefined;
  do {
    const page = await opts.page(next);
    next = page.next;
    out.visited += page.items.length;
    const queue = [...page.items];
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        try {
          const r = await opts.visit(item);
          out.results[r] = (out.results[r] ?? 0) + 1;
        } catch (e) {
          logger.error(opts.failure, { deployment_id: item.deploymentId, error: e as Error });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency, queue.length) }, worker));
  } while (next);
  return out;
}
