import type { RunningDynamo } from '../../infra/local/dynamodb-local';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __dynamo?: RunningDynamo }).__dynamo?.stop();
}
