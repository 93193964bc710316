/** `npm start`: the whole service on this machine, no AWS account needed. */
import { JavaMissingError } from '../infra/local/dynamodb-local.js';
import { localSettings } from '../infra/local/env.js';
import { startLocalStack } from '../infra/local/stack.js';

async function main(): Promise<void> {
  const settings = localSettings();
  const stack = await startLocalStack(settings);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received, stopping (DynamoDB Local included)…`);
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const { resumed, ended } = stack.reconciled;
  if (resumed.length) console.log(`Resumed ${resumed.length} operation(s) that were in flight when the previous run stopped.`);
  if (ended.length) console.log(`Ended ${ended.length} operation(s) that ran past their phase's limit (PHASE_TIMEOUT_SECONDS).`);
  console.log(`Data in ${settings.dataDir}; DynamoDB Local on port ${settings.dynamodbPort}. Docs: ${stack.baseUrl}/docs`);
  console.log(
    `Dashboard: ${new URL('/dashboard/', stack.baseUrl)} (users: npm run users -- create --org <org> --email <email> --role admin|viewer)`,
  );
  console.log(`Deployment Management API (local) ready at ${stack.baseUrl}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof JavaMissingError || e instanceof Error ? `Could not start the local stack: ${e.message}` : e);
  process.exit(1);
});
