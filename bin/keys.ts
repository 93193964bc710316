/**
 * Key administration for platform operators, for bootstrap and automation (customers
 * create keys in the web dashboard; both go through functions/app/api-keys.ts). Talks to the same DynamoDB as
 * `npm start` (DYNAMODB_PORT, DATA_DIR); with `--aws`, to the deployed table named by
 * TABLE_NAME, with the AWS SDK's usual credentials and region.
 *
 *   npm run --silent keys -- create --org <org_id> --name <label> [--scopes a,b] [--expires-at <ISO>] [--json]
 *   npm run --silent keys -- rotate <key_id> [--grace <seconds>] [--json]
 *   npm run --silent keys -- revoke <key_id> [--json]
 *   npm run --silent keys -- list --org <org_id> [--json]
 *   npm run --silent keys -- usage <key_id> [--limit N] [--json]
 */
import { UsageError, wantsHelp } from '../client/cli/args.js';
import { printable } from '../client/cli/context.js';
import { applyLocalEnv, localSecretKey, localSettings } from '../infra/local/env.js';
import { runKeysCommand } from '../infra/local/keys-cli.js';
import { localStandIns, useStandIns } from '../infra/local/stand-ins.js';

const USAGE = `  (add --aws to use the deployed table named by TABLE_NAME instead of the local stack)
  keys create --org <org_id> --name <label> [--scopes a,b] [--expires-at <ISO 8601>] [--json]
  keys rotate <key_id> [--grace <seconds, 0-604800, default 86400>] [--json]
  keys revoke <key_id> [--json]
  keys list --org <org_id> [--json]
  keys usage <key_id> [--limit N] [--json]`;

const args = process.argv.slice(2);
if (wantsHelp(args)) {
  process.stdout.write(`Usage:\n${USAGE}\n`);
  process.exit(0);
}
const onAws = args.includes('--aws');
if (onAws && !process.env.TABLE_NAME) {
  process.stderr.write('--aws needs TABLE_NAME (the stack output TableName).\n');
  process.exit(2);
}
if (!onAws) {
  const settings = localSettings();
  applyLocalEnv(settings);
  // Keys are signed with the local stack's secret, kept under DATA_DIR as `npm start` keeps it.
  useStandIns(localStandIns(localSecretKey(settings.dataDir)));
}

runKeysCommand(
  args.filter((a) => a !== '--aws'),
  { out: (s) => process.stdout.write(`${printable(s)}\n`) },
)
  .then((code) => process.exit(code))
  .catch((e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n\nUsage:\n${USAGE}\n`);
      process.exit(2);
    }
    const refused = e instanceof Error && /ECONNREFUSED|connect/i.test(`${e.message} ${String((e as { cause?: unknown }).cause ?? '')}`);
    process.stderr.write(
      refused
        ? `Cannot reach DynamoDB at ${process.env.AWS_ENDPOINT_URL_DYNAMODB}. Start the local stack first (npm start), with the same DYNAMODB_PORT.\n`
        : `Error: ${e instanceof Error ? e.message : String(e)}\n`,
    );
    process.exit(1);
  });
