/**
 * `npm run test:deployed -- <ApiUrl> <key> [--timeout <seconds>]`: the smoke suite
 * (smoke.ts) against a running stage. Exit 0 when every check passed, 1 at the first that
 * failed (what it answered), 2 on a usage error. With PLATFORM_SETTINGS in the environment
 * (the stage's platform stack's SSM parameter, docs/platform.md) and AWS credentials, it also
 * checks in AWS what the ECS platform made and removed (platform-checks.ts); without it, those
 * checks are skipped, as on a stage of the simulated platform.
 */
import { parseArgs } from 'node:util';
import { PlatformCheckFailure, parsePlatformSettings, platformChecks } from './platform-checks.js';
import { runSmoke, SmokeFailure } from './smoke.js';

const USAGE = 'Usage: npm run test:deployed -- <ApiUrl> <key> [--timeout <seconds per operation, default 1800>]';

function usage(problem: string): never {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  process.exit(2);
}

let parsed: ReturnType<typeof parseArgs<{ options: { timeout: { type: 'string' } }; allowPositionals: true }>>;
try {
  parsed = parseArgs({ options: { timeout: { type: 'string' } }, allowPositionals: true, strict: true });
} catch (e) {
  usage((e as Error).message);
}
const [baseUrl, key, extra] = parsed.positionals;
if (!baseUrl || !key || extra !== undefined) usage('The base URL and the key are required, and nothing else.');
if (!/^https?:\/\/[^/]/.test(baseUrl)) usage(`The base URL must be http(s)://…, the stack output ApiUrl: ${baseUrl}`);
const timeoutSeconds = Number(parsed.values.timeout ?? '1800');
if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1) usage('--timeout must be a whole number of seconds.');

const platformSettings = process.env.PLATFORM_SETTINGS;
let platform: ReturnType<typeof platformChecks> | undefined;
try {
  platform = platformSettings ? platformChecks(parsePlatformSettings(platformSettings)) : undefined;
} catch (e) {
  usage(`PLATFORM_SETTINGS: ${(e as Error).message}`);
}
if (!platform) process.stdout.write('skip the ECS platform checks: PLATFORM_SETTINGS is not set (a stage of the simulated platform)\n');

runSmoke({ baseUrl, key, platform, operationTimeoutMs: timeoutSeconds * 1000, report: (line) => process.stdout.write(`ok ${line}\n`) })
  .then(() => process.stdout.write('All smoke checks passed.\n'))
  .catch((e: unknown) => {
    process.stdout.write(
      `FAIL ${e instanceof SmokeFailure || e instanceof PlatformCheckFailure ? e.message : `${(e as Error).name}: ${(e as Error).message}`}\n`,
    );
    process.exitCode = 1;
  });
