/**
 * Read metering on the process's one DynamoDB client (`ddb`, the client the repositories
 * use): a middleware asks every command for its consumed capacity and, while a meter is
 * running, adds up what DynamoDB reports and how many items each call read and returned.
 */
import { watchDynamoCalls } from '../test/helpers/sdk-calls.js';

/** Commands whose input takes ReturnConsumedCapacity. */
const TAKES_CAPACITY = new Set([
  'GetItemCommand',
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'BatchWriteItemCommand',
  'TransactGetItemsCommand',
  'TransactWriteItemsCommand',
  'ExecuteStatementCommand',
  'BatchExecuteStatementCommand',
  'ExecuteTransactionCommand',
]);

export interface Reading {
  /** Read units DynamoDB reported (ConsumedCapacity.CapacityUnits), summed. */
  reportedUnits: number;
  /** Calls that reported no ConsumedCapacity (then `estimatedUnits` is the measure). */
  unreported: number;
  /** Read units estimated from item sizes: ceil(bytes / 4 KB), halved when eventually consistent. */
  estimatedUnits: number;
  /** Items the calls read: Query ScannedCount, GetItem 1 when found. */
  itemsRead: number;
  /** Items the calls returned (before the repository maps them). */
  itemsReturned: number;
  calls: number;
  commands: string[];
}

const empty = (): Reading => ({
  reportedUnits: 0,
  unreported: 0,
  estimatedUnits: 0,
  itemsRead: 0,
  itemsReturned: 0,
  calls: 0,
  commands: [],
});

let current: Reading | undefined;

/** DynamoDB's item size: attribute names plus values (docs: "Item sizes and formats"). */
export function itemSize(item: Record<string, unknown>): number {
  let n = 0;
  for (const [k, v] of Object.entries(item)) n += Buffer.byteLength(k) + valueSize(v);
  return n;
}

function valueSize(v: unknown): number {
  if (v === null || v === undefined || typeof v === 'boolean') return 1;
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (typeof v === 'number') return Math.ceil(String(Math.abs(v)).replace(/^0\.?0*|\./g, '').length / 2) + 1;
  if (Array.isArray(v)) return 3 + v.reduce((s: number, x) => s + 1 + valueSize(x), 0);
  if (typeof v === 'object')
    return 3 + Object.entries(v as Record<string, unknown>).reduce((s, [k, x]) => s + 1 + Buffer.byteLength(k) + valueSize(x), 0);
  return 0;
}

const units = (bytes: number, consistent: boolean) => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);

export function installMeter(): void {
  watchDynamoCalls(
    'benchReadMeter',
    async ({ command: name, input }, send) => {
      const out = await send(TAKES_CAPACITY.has(name) ? { ...input, ReturnConsumedCapacity: 'TOTAL' } : input);
      const r = current;
      if (r) {
        r.calls++;
        r.commands.push(name.replace(/Command$/, ''));
        const cc = out.ConsumedCapacity as { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
        const reported = Array.isArray(cc) ? cc.reduce((s, c) => s + (c.CapacityUnits ?? 0), 0) : cc?.CapacityUnits;
        if (reported === undefined) r.unreported++;
        else r.reportedUnits += reported;
        const consistent = input.ConsistentRead === true;
        if (name === 'GetItemCommand') {
          const item = out.Item as Record<string, unknown> | undefined;
          r.itemsRead += item ? 1 : 0;
          r.itemsReturned += item ? 1 : 0;
          r.estimatedUnits += units(item ? itemSize(item) : 0, consistent);
        } else if (name === 'QueryCommand' || name === 'ScanCommand') {
          const items = (out.Items as Record<string, unknown>[] | undefined) ?? [];
          const scanned = Number(out.ScannedCount ?? items.length);
          const bytes = items.reduce((s, i) => s + itemSize(i), 0);
          // Items read but filtered out are not returned: count them at the returned items' mean size.
          const readBytes = items.length ? (bytes / items.length) * scanned : scanned * 1024;
          r.itemsRead += scanned;
          r.itemsReturned += items.length;
          r.estimatedUnits += units(readBytes, consistent);
        }
      }
      return out;
    },
    'high',
  );
}

/** Runs `fn` with a fresh meter; calls must not overlap (the benchmark runs them one at a time). */
export async function metered<T>(fn: () => Promise<T>): Promise<{ value: T; reading: Reading; ms: number }> {
  if (current) throw new Error('metered() calls must not overlap');
  const reading = empty();
  current = reading;
  const t0 = performance.now();
  try {
    const value = await fn();
    return { value, reading, ms: performance.now() - t0 };
  } finally {
    current = undefined;
  }
}
