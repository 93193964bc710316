/**
 * Where a running `npm start` listens, kept in `<DATA_DIR>/stack.json` while it runs, so
 * every local tool (npm run keys/users/invoke, deployctl) finds the stack on whatever
 * ports it was given without being told them again (decision 165). A setting given
 * explicitly (an environment variable or a flag) always wins over the file. Imports only
 * node built-ins: deployctl reads it on every start.
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const STACK_FILE = 'stack.json';

export interface StackFile {
  /** The `npm start` process; a file whose process is gone is stale and ignored. */
  pid: number;
  api_url: string;
  dynamodb_endpoint: string;
  user_pool_endpoint: string;
  dashboard_url: string;
  /** The Step Functions endpoint the handlers start workflows on. */
  sfn_endpoint?: string;
  /** With PLATFORM=ecs: the local AWS twin's endpoint (decision 52). */
  aws_endpoint?: string;
  /**
   * This run's AWS credentials (decision 236): DynamoDB Local, the Step Functions endpoint
   * and the user pool's admin actions accept these and no others, so only who can read
   * this 0600 file (the user who ran `npm start`) reaches them.
   */
  credentials?: { access_key_id: string; secret_access_key: string };
}

/** DATA_DIR as `npm start` resolves it (local/env.ts reads it here): relative to the working directory, `.local` by default. */
export const dataDirOf = (env: Record<string, string | undefined>): string => path.resolve(env.DATA_DIR ?? '.local');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the process exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The running stack's addresses under `dataDir`, or undefined when none is running there. */
export function readStackFile(dataDir: string): StackFile | undefined {
  let parsed: Partial<StackFile>;
  try {
    parsed = JSON.parse(readFileSync(path.join(dataDir, STACK_FILE), 'utf8')) as Partial<StackFile>;
  } catch {
    return undefined;
  }
  const complete =
    typeof parsed.pid === 'number' &&
    [parsed.api_url, parsed.dynamodb_endpoint, parsed.user_pool_endpoint, parsed.dashboard_url].every((v) => typeof v === 'string');
  return complete && alive(parsed.pid!) ? (parsed as StackFile) : undefined;
}

/** Written whole (a temporary file renamed over it), so a reader never sees half of it. */
export function writeStackFile(dataDir: string, stack: StackFile): void {
  const file = path.join(dataDir, STACK_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export function removeStackFile(dataDir: string): void {
  rmSync(path.join(dataDir, STACK_FILE), { force: true });
}
