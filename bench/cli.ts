/**
 * The `cli` section: how long `deployctl deployments get <id>` takes as a fresh process,
 * start to exit, against the warm request-bench server, beside `node -e ''` (the floor no
 * Node CLI goes under). Goal: at most 300 ms, median of the runs (decision 168).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const CLI_LIMIT_MS = 300;
const BIN = path.resolve(import.meta.dirname, '../bin/deployctl.js');

export interface CliResult {
  runs: number;
  deployctlMs: number;
  nodeMs: number;
  pass: boolean;
}

/** Wall time of one process, start to exit; it must exit 0. Asynchronous: the server answering it runs in this process. */
function timedRun(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
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
  const env = { PATH: process.env.PATH ?? '', DEPLOY_API_URL: fixture.baseUrl, DEPLOY_API_KEY: fixture.key };
  const get = [BIN, 'deployments', 'get', fixture.deploymentId];
  // Two warm-up runs of each (the first builds the bundle if a source changed; the file cache), then interleaved, so load changes hit both alike.
  for (let i = 0; i < 2; i++) await Promise.all([timedRun(get, env), timedRun(['-e', ''], env)]);
  const cli: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    cli.push(await timedRun(get, env));
    floor.push(await timedRun(['-e', ''], env));
  }
  const deployctlMs = median(cli);
  return { runs, deployctlMs, nodeMs: median(floor), pass: deployctlMs <= CLI_LIMIT_MS };
}

export function printCliReport(r: CliResult): boolean {
  console.log('');
  console.log(`CLI start to exit, median of ${r.runs} fresh processes against the warm local server (goal ≤ ${CLI_LIMIT_MS} ms):`);
  console.log(
    `${r.pass ? 'PASS' : 'FAIL'}  deployctl deployments get <id>: ${Math.round(r.deployctlMs)} ms (node -e '': ${Math.round(r.nodeMs)} ms)`,
  );
  return r.pass;
}
