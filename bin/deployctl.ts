/** deployctl: the command-line client of the Deployment Management API (logic in client/cli/). */
import { runCli } from '../client/cli/main.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, signal: controller.signal }).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`deployctl: unexpected failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 3;
  },
);
