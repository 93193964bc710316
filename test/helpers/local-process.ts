/** Runs `npm start` as a real child process on free ports, as a user would. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { captureCli, captureServer } from './log-capture.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface LocalProcess {
  baseUrl: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill(): void;
}

/** The user's environment without what the test process set for its own in-process handlers. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (
      !/^(AWS_|TABLE_NAME$|STATE_MACHINE_ARN$|APP_DOMAIN$|PHASE_DELAY_MS$|SIMULATED_FAILURE$|RATE_LIMIT_|CREATE_LIMIT_|DASHBOARD_|TEST_|JEST_)/.test(
        k,
      )
    )
      env[k] = v;
  }
  return { ...env, ...extra };
}

export async function startNpm(env: Record<string, string>, timeoutMs = 90_000): Promise<LocalProcess> {
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    // LOG_LEVEL passes through from the test environment: its logs go to the run's log files.
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  captureServer('npm-start', child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start was not ready within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const check = () => {
      const m = /ready at (http:\/\/localhost:\d+\/api\/v1)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before it was ready:\n${out}`));
    });
  });
  return {
    baseUrl,
    output: () => out,
    /** Signals npm alone, as `kill <pid>` would: npm forwards it, and the stack must stop DynamoDB Local itself. */
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      process.kill(child.pid!, signal);
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          exited,
          new Promise<number | null>(
            (_, reject) => (timer = setTimeout(() => reject(new Error(`npm start did not stop within 20 s:\n${out}`)), 20_000)),
          ),
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
    /** Last resort for test cleanup: the whole process group. */
    kill() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/** `npm run --silent <script> -- …` (an operator CLI) against the same local stack. */
export function npmScript(
  script: 'keys' | 'users',
  args: string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('npm', ['run', '--silent', script, '--', ...args], {
    cwd: ROOT,
    env: cleanEnv(env),
    encoding: 'utf8',
    timeout: 60_000,
  });
  captureCli(script, r.pid, r.stdout, r.stderr);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `npm run --silent keys -- …` against the same DynamoDB Local as a running stack. */
export const keysCli = (args: string[], env: Record<string, string>) => npmScript('keys', args, env);

export async function portIsOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, host);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
