/**
 * What the operator CLIs (bin/keys.ts, bin/users.ts) share around their commands: the
 * usage on --help, `--aws` and the variable it needs, and the exit codes (0, 1, and 2
 * for a usage error), with a hint when the local stack they talk to is not running.
 */
import { UsageError, wantsHelp } from '../cli-kit/args.js';

/** The arguments without `--aws`, and whether it was given; exits on --help, or on `--aws` without `awsNeeds` set. */
export function operatorArgs(usage: string, awsNeeds: { variable: string; output: string }): { args: string[]; onAws: boolean } {
  const argv = process.argv.slice(2);
  if (wantsHelp(argv)) {
    process.stdout.write(`Usage:\n${usage}\n`);
    process.exit(0);
  }
  const onAws = argv.includes('--aws');
  if (onAws && !process.env[awsNeeds.variable]) {
    process.stderr.write(`--aws needs ${awsNeeds.variable} (the stack output ${awsNeeds.output}).\n`);
    process.exit(2);
  }
  return { args: argv.filter((a) => a !== '--aws'), onAws };
}

/** Exits with the command's code; `unreachable` tells a refused connection (its message and cause) from other errors. */
export function exitWhenDone(
  command: Promise<number>,
  usage: string,
  unreachable: { test: (text: string) => boolean; hint: string },
): void {
  command
    .then((code) => process.exit(code))
    .catch((e: unknown) => {
      if (e instanceof UsageError) {
        process.stderr.write(`${e.message}\n\nUsage:\n${usage}\n`);
        process.exit(2);
      }
      const refused = e instanceof Error && unreachable.test(`${e.message} ${String((e as { cause?: unknown }).cause ?? '')}`);
      process.stderr.write(refused ? `${unreachable.hint}\n` : `Error: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    });
}
