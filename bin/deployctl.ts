/** deployctl: the command-line client of the Deployment Management API (logic in client/cli/). */
import { runCli } from '../client/cli/main.js';
import { nodeFetch } from '../client/cli/node-transport.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort(new Error('interrupted')));

// node:http, not the global fetch: a command starts about 50 ms sooner (decision 302).
runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
  fetch: nodeFetch,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`deployctl: unexpected failure: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 3;
  },
);
