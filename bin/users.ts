/**
 * The dashboard's users, for operators: against the emulated user pool of the running
 * `npm start` of DATA_DIR (found through its stack file, or PORT), or with `--aws` against the deployed Cognito user pool named by
 * USER_POOL_ID (the stack output UserPoolId), with the AWS SDK's usual credentials and region.
 *
 *   npm run --silent users -- create --org <org_id> --email <email> --role admin|viewer [--password <p>] [--json]
 *   npm run --silent users -- list [--org <org_id>] [--json]
 *   npm run --silent users -- delete <email>
 */
import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { printable } from '../cli-kit/text.js';
import { localSettings, stackEndpoints } from '../local/env.js';
import { exitWhenDone, operatorArgs } from '../local/operator-cli.js';
import { LOCAL_USER_POOL_ID } from '../local/user-pool.js';
import { runUsersCommand } from '../local/users-cli.js';

const USAGE = `  (add --aws to use the deployed user pool named by USER_POOL_ID instead of the local stack)
  users create --org <org_id> --email <email> --role admin|viewer [--password <password>] [--json]
  users list [--org <org_id>] [--json]
  users delete <email>`;

const { args, onAws } = operatorArgs(USAGE, { variable: 'USER_POOL_ID', output: 'UserPoolId' });
const stack = stackEndpoints(localSettings());
const local = stack.userPool;
const client = onAws
  ? new CognitoIdentityProviderClient({})
  : new CognitoIdentityProviderClient({
      endpoint: local,
      region: 'us-east-1',
      credentials: stack.credentials,
    });

exitWhenDone(
  runUsersCommand(
    args,
    { out: (s) => process.stdout.write(`${printable(s)}\n`) },
    client,
    onAws ? process.env.USER_POOL_ID! : LOCAL_USER_POOL_ID,
  ),
  USAGE,
  {
    test: (text) => !onAws && /ECONNREFUSED/.test(text),
    hint: `Cannot reach the local user pool at ${local}. Start the local stack first (npm start), with the same DATA_DIR (or PORT).`,
  },
);
