/** Runs `npm start` as a real child process on free ports, as a user would. */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { captureCli, captureServer } from './log-capture.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Whether `port` can be listened on now. */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

/**
 * A port free now, below Linux's ephemeral range (32768-60999): a port from that range
 * (what `listen(0)` hands out) may be taken as the local end of an outgoing connection,
 * which every test worker makes by the thousand, before the process it was chosen for
 * listens on it (EADDRINUSE).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
  throw new Error('no free port found between 20000 and 32000');
}

export interface LocalProcess {
  baseUrl: string;
  /** npm's pid, which is also the id of the process group it leads. */
  pid: number;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill(): void;
  /** SIGKILL to the whole process group (npm, node, DynamoDB Local's java), as a crash or `kill -9 -<pgid>` would; resolves once every member is gone. */
  killGroup(): Promise<void>;
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
    pid: child.pid!,
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
    async killGroup() {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      await exited;
      // npm's exit is not its children's: wait until no process of the group is left (java included).
      const deadline = Date.now() + 20_000;
      while (liveMembers(child.pid!) > 0) {
        if (Date.now() > deadline) throw new Error(`process group ${child.pid} still alive 20 s after SIGKILL`);
        await new Promise((r) => setTimeout(r, 50));
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

/** Processes of the group that are not zombies (a zombie holds no port or file; its reaping is up to PID 1). Linux /proc. */
export function liveMembers(pgid: number): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      // comm may hold spaces and parentheses: the fields start after its closing ')'.
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
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

/** A JSON request with an API key to a running stack, as a client sends it; `send` may check what comes back. */
export async function callStack(
  stack: Pick<LocalProcess, 'baseUrl'>,
  key: string,
  method: string,
  p: string,
  body?: unknown,
  send: typeof fetch = fetch,
): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await send(`${stack.baseUrl}${p}`, {
    method,
    headers: { 'X-API-Key': key, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}
