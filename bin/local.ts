/** `npm start`: the whole service on this machine, no AWS account needed. */
import { removeStackFile, writeStackFile } from '../cli-kit/stack-file.js';
import { JavaMissingError } from '../local/dynamodb-local.js';
import { localSettings } from '../local/env.js';
import { startLocalStack } from '../local/stack.js';

async function main(): Promise<void> {
  const settings = localSettings();
  const stack = await startLocalStack(settings);
  const dashboardUrl = new URL('/dashboard/', stack.baseUrl).toString();
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal} received, stopping (DynamoDB Local included)…`);
    removeStackFile(settings.dataDir);
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // The tools find this stack through the file, whatever ports it was given (decision 165).
  writeStackFile(settings.dataDir, {
    pid: process.pid,
    api_url: stack.baseUrl,
    dynamodb_endpoint: stack.dynamodbEndpoint,
    user_pool_endpoint: stack.userPoolEndpoint,
    dashboard_url: dashboardUrl,
    sfn_endpoint: stack.sfnEndpoint,
    ...(stack.twin ? { aws_endpoint: stack.twin.endpoint } : {}),
    credentials: { access_key_id: stack.credentials.accessKeyId, secret_access_key: stack.credentials.secretAccessKey },
  });
  // A kill the handlers above do not see leaves the file; its dead pid marks it stale to readers.
  process.on('exit', () => removeStackFile(settings.dataDir));
  const { resumed, ended } = stack.reconciled;
  if (resumed.length) console.log(`Resumed ${resumed.length} operation(s) that were in flight when the previous run stopped.`);
  if (ended.length) console.log(`Ended ${ended.length} operation(s) that ran past their phase's limit (PHASE_TIMEOUT_SECONDS).`);
  console.log(`Data in ${settings.dataDir}; DynamoDB Local on port ${settings.dynamodbPort}. Docs: ${stack.baseUrl}/docs`);
  console.log(`Dashboard: ${dashboardUrl}`);
  if (stack.twin) console.log(`Platform: ECS on the local AWS twin at ${stack.twin.endpoint} (moto at ${stack.twin.motoEndpoint})`);
  // Ready to paste in another terminal from the same folder (the tools find the stack through DATA_DIR's stack.json).
  console.log(`Next, in another terminal:
  npm run --silent users -- create --org acme --email you@example.com --role admin   (a dashboard user)
  export DEPLOY_API_KEY=$(npm run --silent keys -- create --org acme --name laptop --print key)
  npm run --silent deployctl -- environments list`);
  console.log(`Deployment Management API (local) ready at ${stack.baseUrl}`);
}

main().catch((e: unknown) => {
  console.error(e instanceof JavaMissingError || e instanceof Error ? `Could not start the local stack: ${e.message}` : e);
  process.exit(1);
});
