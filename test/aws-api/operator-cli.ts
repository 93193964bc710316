/** An operator CLI (bin/keys.ts, bin/users.ts) run with `--aws` as an operator runs it, its AWS endpoints moto's. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cleanEnv } from '../helpers/local-process.js';
import { motoEndpoints } from './moto.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npm run --silent <script> -- --aws …` with the stack output variables `outputs` (TABLE_NAME, USER_POOL_ID, …). */
export function onAws(script: 'keys' | 'users', args: string[], outputs: Record<string, string>) {
  const r = spawnSync('npm', ['run', '--silent', script, '--', '--aws', ...args], {
    cwd: ROOT,
    env: cleanEnv({
      ...motoEndpoints(process.env.MOTO_ENDPOINT!),
      AWS_REGION: process.env.AWS_REGION!,
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID!,
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY!,
      ...outputs,
    }),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
