/**
 * Records every request the process's DynamoDB client sends (an SDK middleware on the
 * one client, as AWS would see them), to check what a request path costs and reaches.
 */
import { type SdkCall, watchDynamoCalls } from './sdk-calls.js';

export type DynamoCall = SdkCall;

const recording: DynamoCall[][] = [];

const install = () =>
  watchDynamoCalls('recordDynamoCalls', (call, send) => {
    for (const list of recording) list.push({ command: call.command, input: structuredClone(call.input) });
    return send();
  });

/** Runs `work` and returns what it sent to DynamoDB (everything this process sent meanwhile). */
export async function dynamoCallsOf<T>(work: () => Promise<T>): Promise<{ result: T; calls: DynamoCall[] }> {
  install();
  const calls: DynamoCall[] = [];
  recording.push(calls);
  try {
    return { result: await work(), calls };
  } finally {
    recording.splice(recording.indexOf(calls), 1);
  }
}

/** Every partition key value a call names (keys, items, transaction items, batch keys, query partitions). */
export function partitionKeysOf(call: DynamoCall): string[] {
  const i = call.input;
  const out: string[] = [];
  const fromKey = (k: Record<string, unknown> | undefined) => {
    if (k && typeof k.pk === 'string') out.push(k.pk);
  };
  fromKey(i.Key);
  fromKey(i.Item);
  for (const t of i.TransactItems ?? []) for (const op of Object.values(t) as Record<string, any>[]) fromKey(op.Key ?? op.Item);
  for (const table of Object.values(i.RequestItems ?? {}) as { Keys?: Record<string, unknown>[] }[])
    for (const k of table.Keys ?? []) fromKey(k);
  if (call.command === 'QueryCommand') {
    const pk = Object.entries(i.ExpressionAttributeValues ?? {}).find(([name]) => name === ':pk')?.[1];
    if (typeof pk === 'string') out.push(pk);
  }
  return out;
}
