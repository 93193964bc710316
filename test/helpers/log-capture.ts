/**
 * Every log line a test run makes goes to a file of the run's log directory (made by
 * test-run.cjs, named by TEST_LOG_DIR), so that test-run.cjs can scan them all
 * for secrets (log-scan.ts) while jest's terminal shows only jest. Files are named after
 * their source: `jest-<test file>` for the handlers, workflow steps and local host pieces a
 * test file runs in its own process (capture-logs.ts), `npm-start-<pid>` for an `npm start`
 * child, `cli-<script>-<pid>` for an operator or client CLI.
 */
import { appendFileSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';

const LOG_DIR_VAR = 'TEST_LOG_DIR';

/**
 * An appender to `<name>.log` in the run's log directory. Writes are synchronous: a line
 * is on disk before the call returns, so nothing is lost when a jest worker exits right
 * after its last test (an asynchronous stream would drop what it still held), and one
 * `write` per line costs a few microseconds. The descriptor stays open for the process's
 * life: a late line (a workflow step settling after its test) still has somewhere to go.
 */
export function logFile(name: string): (text: string | Buffer) => void {
  const fd = openLog(name);
  return (text) => {
    writeSync(fd, typeof text === 'string' ? Buffer.from(text) : text);
  };
}

/** A descriptor appending to `<name>.log` in the run's log directory. */
export function openLog(name: string): number {
  return openSync(logPath(name), 'a');
}

/** Where `<name>.log` of the run's log directory is. */
export function logPath(name: string): string {
  const dir = process.env[LOG_DIR_VAR];
  if (!dir) throw new Error(`${LOG_DIR_VAR} is not set: jest's globalSetup (test/helpers/global-setup.cjs) makes the run's log directory.`);
  return path.join(dir, `${name.replace(/[^\w.-]+/g, '~')}.log`);
}

/** The log name of a test file (`jest-integration~auth` for test/integration/auth.test.ts), where capture-logs.ts sends its output. */
export function testLogName(testPath: string): string {
  return `jest-${path.relative(path.resolve(import.meta.dirname, '..'), testPath).replace(/\.test\.ts$/, '')}`;
}

/** A log record of functions/lib/logger.ts (one JSON object a line, with its level, time and service), as opposed to a CLI's answer. */
export function isLogRecord(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const r = JSON.parse(line) as Record<string, unknown>;
    return typeof r.level === 'string' && typeof r.timestamp === 'string' && typeof r.service === 'string';
  } catch {
    return false;
  }
}

/**
 * A server's output as it arrives: all of it is log. Its standard output and error go
 * to two files, since chunks of the two streams may split a line and interleave.
 */
export function captureServer(
  name: string,
  child: { pid?: number; stdout: NodeJS.ReadableStream | null; stderr: NodeJS.ReadableStream | null },
): void {
  const out = logFile(`${name}-${child.pid}.stdout`);
  const err = logFile(`${name}-${child.pid}.stderr`);
  child.stdout?.on('data', (d: Buffer) => out(d));
  child.stderr?.on('data', (d: Buffer) => err(d));
}

/**
 * What a finished CLI wrote: its standard error whole, and of its standard output only the
 * log records. The rest of standard output is the CLI's answer, which shows a new key
 * (`keys create`), a new webhook's secret (`invoke`) or a user's password once, by design:
 * that is the product, not a log.
 */
export function captureCli(name: string, pid: number | undefined, stdout: string, stderr: string): void {
  const records = stdout.split('\n').filter(isLogRecord);
  const logged = [...records.map((l) => `${l}\n`), stderr].join('');
  if (logged) appendFileSync(logPath(`cli-${name}-${pid}`), logged);
}
