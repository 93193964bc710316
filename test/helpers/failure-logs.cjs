// A jest reporter: when a test file fails, the faults its handlers, workflow steps and local
// host pieces logged (the ERROR lines of its log file, log-capture.ts) are printed beside
// the failure. A 500 says only "INTERNAL_ERROR" and a request id, by design; a failure on a
// CI machine is read once, from its output, after the run's log directory is gone, so the
// fault behind it has to be in that output. ERROR lines are what CloudWatch would hold, and
// the run's secrets scan (test-run.cjs) judges every one of them all the same.
const { existsSync, readFileSync } = require('node:fs');
const { tsImport } = require('tsx/esm/api');

/** At most this many faults a file, the last ones, each cut to this many characters. */
const MAX_LINES = 20;
const MAX_CHARS = 2000;

class FailureLogs {
  async onTestResult(_test, result) {
    if (result.numFailingTests === 0 && !result.testExecError) return;
    const { isLogRecord, logPath, testLogName } = await tsImport('./log-capture.ts', __filename);
    const file = logPath(testLogName(result.testFilePath));
    if (!existsSync(file)) return;
    const faults = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => isLogRecord(line) && JSON.parse(line).level === 'ERROR');
    if (faults.length === 0) return;
    const shown = faults.slice(-MAX_LINES).map((l) => (l.length > MAX_CHARS ? `${l.slice(0, MAX_CHARS)}…` : l));
    const skipped = faults.length > shown.length ? ` (the last ${shown.length} of ${faults.length})` : '';
    process.stderr.write(`\nFaults logged by ${testLogName(result.testFilePath)}${skipped}:\n${shown.join('\n')}\n\n`);
  }
}

module.exports = FailureLogs;
