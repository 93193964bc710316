/**
 * Key administration for platform operators, for bootstrap and automation (customers
 * create keys in the web dashboard; both go through functions/app/api-keys.ts). Talks to the same DynamoDB as
 * the `npm start` of DATA_DIR (found through its stack file, or DYNAMODB_PORT); with `--aws`, to the deployed table named by
 * TABLE_NAME, with the AWS SDK's usual credentials and region. Failures are one line on stderr, exit 1.
 *
 *   npm run --silent keys -- create --org <org_id> --name <label> [--scopes a,b] [--expires-at <ISO>] [--json | --print key]
 *   npm run --silent keys -- rotate <key_id> [--grace <seconds>] [--json]
 *   npm run --silent keys -- revoke <key_id> [--json]
 *   npm run --silent keys -- list --org <org_id> [--json]
 *   npm run --silent keys -- usage <key_id> [--limit N] [--json]
 */
import { printable } from '../cli-kit/text.js';
import { applyLocalEnv, localSecretKey, localSettings, stackEndpoints } from '../local/env.js';
import { runKeysCommand } from '../local/keys-cli.js';
import { exitWhenDone, operatorArgs } from '../local/operator-cli.js';
import { localStandIns, useStandIns } from '../local/stand-ins.js';

const USAGE = `  (add --aws to use the deployed table named by TABLE_NAME instead of the local stack)
  keys create --org <org_id> --name <label> [--scopes a,b] [--expires-at <ISO 8601>] [--json | --print key]
  keys rotate <key_id> [--grace <seconds, 0-604800, default 86400>] [--json]
  keys revoke <key_id> [--json]
  keys list --org <org_id> [--json]
  keys usage <key_id> [--limit N] [--json]`;

const { args, onAws } = operatorArgs(USAGE, { variable: 'TABLE_NAME', output: 'TableName' });
if (!onAws) {
  const settings = localSettings();
  const stack = stackEndpoints(settings);
  process.env.AWS_ENDPOINT_URL_DYNAMODB ??= stack.dynamodb;
  process.env.AWS_ACCESS_KEY_ID = stack.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = stack.credentials.secretAccessKey;
  applyLocalEnv(settings);
  // Keys are signed with the local stack's secret, kept under DATA_DIR as `npm start` keeps it.
  useStandIns(localStandIns(localSecretKey(settings.dataDir)));
}

exitWhenDone(
  runKeysCommand(args, {
    out: (s) => process.stdout.write(`${printable(s)}\n`),
    fail: (s) => process.stderr.write(`${printable(s)}\n`),
  }),
  USAGE,
  {
    test: (text) => /ECONNREFUSED|connect/i.test(text),
    hint: `Cannot reach DynamoDB at ${process.env.AWS_ENDPOINT_URL_DYNAMODB}. Start the local stack first (npm start), with the same DATA_DIR (or DYNAMODB_PORT).`,
  },
);
