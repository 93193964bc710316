/**
 * The `cli` section: how long `deployctl deployments get <id>` takes as a fresh process,
 * start to exit, against the warm request-bench server, run the way docs/client.md says
 * (bin/ on the PATH, `deployctl …`: no npx), beside `node -e ''` from the same PATH (the
 * floor no Node CLI goes under). Goal: at most the floor + 200 ms, medians of the runs
 * (decision 237; decision 168 asked at most 300 ms).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const CLI_OVER_NODE_MS = 200;
const BIN_DIR = path.resolve(import.meta.dirname, '../bin');

export interface CliResult {
  runs: number;
  deployctlMs: number;
  nodeMs: number;
  pass: boolean;
}

/** Wall time of one process, start to exit; it must exit 0. Asynchronous: the server answering it runs in this process. */
function timedRun(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(command, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function measureCli(fixture: { baseUrl: string; key: string; deploymentId: string }, runs: number): Promise<CliResult> {
  // The user's PATH with bin/ in front (docs/client.md): `deployctl` and `node` are what a shell would run.
  const env = {
    PATH: `${BIN_DIR}${path.delimiter}${process.env.PATH ?? ''}`,
    DEPLOY_API_URL: fixture.baseUrl,
    DEPLOY_API_KEY: fixture.key,
  };
  const get = () => timedRun('deployctl', ['deployments', 'get', fixture.deploymentId], env);
  const node = () => timedRun('node', ['-e', ''], env);
  // Two warm-up runs of each (the first builds the bundle if a source changed; the file cache), then interleaved, so load changes hit both alike.
  for (let i = 0; i < 2; i++) await Promise.all([get(), node()]);
  const cli: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    cli.push(await get());
    floor.push(await node());
  }
  const deployctlMs = median(cli);
  const nodeMs = median(floor);
  return { runs, deployctlMs, nodeMs, pass: deployctlMs <= nodeMs + CLI_OVER_NODE_MS };
}

export function printCliReport(r: CliResult): boolean {
  console.log('');
  console.log(
    `CLI start to exit, median of ${r.runs} fresh processes against the warm local server (goal ≤ node -e '' + ${CLI_OVER_NODE_MS} ms):`,
  );
  console.log(
    `${r.pass ? 'PASS' : 'FAIL'}  deployctl deployments get <id> (bin/ on the PATH): ${Math.round(r.deployctlMs)} ms; node -e '': ${Math.round(r.nodeMs)} ms; +${Math.round(r.deployctlMs - r.nodeMs)} ms`,
  );
  return r.pass;
}
