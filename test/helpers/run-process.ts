/** Runs a CLI as a real process and captures what it prints and its exit code. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { captureCli } from './log-capture.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ProcessResult {
  /** null when the process was killed by a signal (e.g. the timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runProcess(command: string, args: string[], opts: { env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], timeout: opts.timeoutMs ?? 30_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      // Named after the script it runs (bin/keys.ts, the deployctl bundle), for the log scan's report.
      const script = args.find((a) => /\.[cm]?[jt]s$/.test(a)) ?? command;
      captureCli(path.basename(script).replace(/\.[^.]+$/, ''), child.pid, stdout, stderr);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs `npx tsx <script> …` (an operator CLI of bin/) against the test DynamoDB, found as
 * `npm start` finds it: through DYNAMODB_PORT alone, with the test table.
 */
export function runLocalScript(script: string, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<ProcessResult> {
  const full: NodeJS.ProcessEnv = { ...process.env, DYNAMODB_PORT: process.env.TEST_DYNAMODB_PORT, TABLE_NAME: 'deployments-test', ...env };
  delete full.AWS_ENDPOINT_URL_DYNAMODB;
  return runProcess('npx', ['tsx', script, ...argv], { env: full });
}
