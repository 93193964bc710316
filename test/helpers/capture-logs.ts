/**
 * The handlers, workflow steps and local host pieces a test file runs write their logs
 * where Lambda's go, to standard output and error (functions/lib/logger.ts writes to
 * `process.stdout` and `process.stderr`). Here both are this test file's log file, so the
 * run's logs can be scanned for secrets (test-run.cjs) while jest's own output
 * stays on the terminal: only the test file's sandboxed `process` changes, and jest's
 * console and reporters keep the real streams. Listed first in setupFilesAfterEnv, so
 * the streams are replaced before any module a test loads can write.
 */
import { writeSync } from 'node:fs';
import { Writable } from 'node:stream';
import { openLog, testLogName } from './log-capture.js';

const fd = openLog(testLogName(expect.getState().testPath!));
// Synchronous, as log-capture.ts's logFile explains. The `fd` lets a child process that is
// handed this process's output as its stdio (CDK's esbuild bundling in the infra tests) write
// to the same file: Node shares a stream's descriptor with a child, and refuses one without.
// One stream each (on the same file), so that stdout and stderr stay two objects, as they are.
const sink = () =>
  Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        writeSync(fd, chunk);
        done();
      },
    }),
    { fd },
  );
for (const name of ['stdout', 'stderr'] as const)
  Object.defineProperty(process, name, { value: sink(), configurable: true, writable: true });
