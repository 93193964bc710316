/**
 * moto's server (`moto_server`), an independent implementation of the AWS APIs, on a
 * loopback port: the test lane's AWS (test/aws-api) and the local AWS twin's (decision 52).
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** What a process that needs moto prints, alone, on a machine without it. */
export const MOTO_MISSING =
  "moto_server was not found: install it with pip install 'moto[server]' (Python 3), then run npm run test:aws-api again.";

export class MotoMissingError extends Error {}

export interface RunningMoto {
  endpoint: string;
  stop(): Promise<void>;
}

const READY_WITHIN_MS = 60_000;

/**
 * Starts `command` (moto_server unless told) on `port`, with `env` added to its environment;
 * resolves once it answers, rejects with MotoMissingError (`missing` its message) when
 * there is no such command.
 */
export async function startMoto(
  port: number,
  command = 'moto_server',
  options: { env?: Record<string, string>; missing?: string } = {},
): Promise<RunningMoto> {
  const endpoint = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(command, ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (e: NodeJS.ErrnoException) =>
      resolve(e.code === 'ENOENT' ? new MotoMissingError(options.missing ?? MOTO_MISSING) : e),
    );
    child.once('exit', (code) => resolve(new Error(`moto_server exited (${code}) before it answered:\n${err}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  };
  const deadline = Date.now() + READY_WITHIN_MS;
  let failed: Error | undefined;
  void exited.then((e) => (failed = e));
  while (!failed) {
    try {
      if ((await fetch(`${endpoint}/moto-api/data.json`)).ok) return { endpoint, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`moto_server did not answer on ${endpoint} within ${READY_WITHIN_MS / 1000} s:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw failed;
}
