/**
 * Runs one handler module with an event file against the local stack, like
 * `sam local invoke`. Talks to the same DynamoDB as the `npm start` of DATA_DIR (found
 * through its stack file, or DYNAMODB_PORT).
 *
 *   npm run --silent invoke -- <handler> <event.json> [--key <key> | --org <org_id>]
 *
 * The handler's result is printed to stdout as JSON; its logs go to stderr. Sample events
 * are in test/events/; their svc_sk_live_REPLACE_ME becomes a real key (local/invoke.ts).
 * Exit codes: 0 result printed, 1 the handler threw, 2 bad usage, 3 the handler answered
 * an error (status 400 or more; the result is printed all the same).
 */
import { UsageError, wantsHelp } from '../cli-kit/args.js';
import { applyLocalEnv, localSecretKey, localSettings, stackEndpoints } from '../local/env.js';
import { knownHandlers, runInvoke, USAGE } from '../local/invoke.js';
import { localStandIns, useStandIns } from '../local/stand-ins.js';

const settings = localSettings();
const stack = stackEndpoints(settings);
process.env.AWS_ENDPOINT_URL_DYNAMODB ??= stack.dynamodb;
process.env.AWS_ACCESS_KEY_ID = stack.credentials.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = stack.credentials.secretAccessKey;
applyLocalEnv(settings);
// The same sealing key as `npm start` on this DATA_DIR, so each opens what the other sealed.
useStandIns(localStandIns(localSecretKey(settings.dataDir)));

// As with `sam local invoke`, stdout carries the result alone: the handler's log lines go to stderr.
const writeResult = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

const print = (value: unknown, code: number) => writeResult(`${JSON.stringify(value ?? null, null, 2)}\n`, () => process.exit(code));

/** An HTTP handler's answer of 400 or more, which a script running this must not take for success. */
const isErrorAnswer = (result: unknown) => {
  const status = (result as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400;
};

const argv = process.argv.slice(2);
if (wantsHelp(argv)) writeResult(`Usage: ${USAGE}\nHandlers: ${knownHandlers().join(', ')}\n`, () => process.exit(0));
else
  runInvoke(argv)
    .then((result) => print(result, isErrorAnswer(result) ? 3 : 0))
    .catch((e: unknown) => {
      if (e instanceof UsageError) {
        process.stderr.write(`${e.message}\n\nUsage: ${USAGE}\n`);
        process.exit(2);
      }
      // What Lambda reports for a handler that threw.
      const error =
        e instanceof Error
          ? { errorType: e.name, errorMessage: e.message, trace: (e.stack ?? '').split('\n') }
          : { errorType: 'Error', errorMessage: String(e) };
      print(error, 1);
    });
