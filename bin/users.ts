/**
 * The dashboard's users, for operators: against the emulated user pool of a running
 * `npm start` (PORT), or with `--aws` against the deployed Cognito user pool named by
 * USER_POOL_ID (the stack output UserPoolId), with the AWS SDK's usual credentials and region.
 *
 *   npm run --silent users -- create --org <org_id> --email <email> --role admin|viewer [--password <p>] [--json]
 *   npm run --silent users -- list [--org <org_id>] [--json]
 *   npm run --silent users -- delete <email>
 */
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { UsageError, wantsHelp } from '../client/cli/args.js';
import { printable } from '../client/cli/context.js';
import { localSettings } from '../infra/local/env.js';
import { LOCAL_USER_POOL_ID, USER_POOL_PATH } from '../infra/local/user-pool.js';
import { runUsersCommand } from '../infra/local/users-cli.js';

const USAGE = `  (add --aws to use the deployed user pool named by USER_POOL_ID instead of the local stack)
  users create --org <org_id> --email <email> --role admin|viewer [--password <password>] [--json]
  users list [--org <org_id>] [--json]
  users delete <email>`;

const args = process.argv.slice(2);
if (wantsHelp(args)) {
  process.stdout.write(`Usage:\n${USAGE}\n`);
  process.exit(0);
}
const onAws = args.includes('--aws');
if (onAws && !process.env.USER_POOL_ID) {
  process.stderr.write('--aws needs USER_POOL_ID (the stack output UserPoolId).\n');
  process.exit(2);
}
const local = `http://127.0.0.1:${localSettings().port}${USER_POOL_PATH}/`;
const client = onAws
  ? new CognitoIdentityProviderClient({})
  : new CognitoIdentityProviderClient({
      endpoint: local,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });

runUsersCommand(
  args.filter((a) => a !== '--aws'),
  { out: (s) => process.stdout.write(`${printable(s)}\n`) },
  client,
  onAws ? process.env.USER_POOL_ID! : LOCAL_USER_POOL_ID,
)
  .then((code) => process.exit(code))
  .catch((e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n\nUsage:\n${USAGE}\n`);
      process.exit(2);
    }
    const refused = !onAws && e instanceof Error && /ECONNREFUSED/.test(`${e.message} ${String((e as { cause?: unknown }).cause ?? '')}`);
    process.stderr.write(
      refused
        ? `Cannot reach the local user pool at ${local}. Start the local stack first (npm start), with the same PORT.\n`
        : `Error: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    process.exit(1);
  });
