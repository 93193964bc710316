// What the global hooks of every lane share (decision 208): the run's log directory, made
// by the first lane's globalSetup, and the secrets scan of everything logged in it, after
// the last lane's globalTeardown. jest runs each hook module once a run however many lanes
// name it, and the engine lanes name other modules than the rest, so the lanes in a run
// count themselves in and out here. globalSetup and globalTeardown run in jest's own
// process, which holds this count; a watch run starts from zero again.
const { existsSync, mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tsImport } = require('tsx/esm/api');
const { LANES, laneFiles } = require('./lanes.cjs');

const run = () => {
  globalThis.__testRun ??= { hooks: 0 };
  return globalThis.__testRun;
};

/** Called by each lane hook module's globalSetup: the first makes the run's log directory. */
function openRun() {
  if (run().hooks++ > 0) return;
  // Every log line of the run goes to files here (log-capture.ts), scanned by closeRun.
  // Workers and the processes they start inherit the path.
  process.env.TEST_LOG_DIR = mkdtempSync(path.join(os.tmpdir(), 'deployments-test-logs-'));
  // Where tests register the secrets the service made for them (registerCanary: app user passwords), searched for as they are.
  process.env.TEST_CANARY_DIR = mkdtempSync(path.join(os.tmpdir(), 'canaries-'));
}

/**
 * The lanes whose every test file and test ran, so their floors apply: jest runs a lane's
 * files only when it selects the lane, and each file it runs leaves its log file
 * (capture-logs.ts), present even when empty.
 */
async function lanesRunWhole(globalConfig) {
  const { isWholeSuite } = await tsImport('./log-scan.ts', __filename);
  const { logPath, testLogName } = await tsImport('./log-capture.ts', __filename);
  if (!isWholeSuite(globalConfig)) return [];
  return Object.keys(LANES).filter((lane) => {
    const files = laneFiles(globalConfig.rootDir, lane);
    return files.length > 0 && files.every((f) => existsSync(logPath(testLogName(f))));
  });
}

/**
 * Called by each lane hook module's globalTeardown: the last scans every log line of the
 * run for secrets (log-scan.ts). A finding fails the run; the logs are then kept for a
 * look, as they are with KEEP_TEST_LOGS=1, and removed otherwise.
 */
async function closeRun(globalConfig) {
  if (--run().hooks > 0) return;
  const dir = process.env.TEST_LOG_DIR;
  const { scanLogDir, verdict, registeredCanaries } = await tsImport('./log-scan.ts', __filename);
  const canaries = registeredCanaries();
  rmSync(process.env.TEST_CANARY_DIR, { recursive: true, force: true });
  const { problems, summary } = verdict(scanLogDir(dir, canaries), await lanesRunWhole(globalConfig));
  if (problems.length) {
    throw new Error(
      `${summary}. The run's logs are in ${dir}:\n  ${problems.slice(0, 50).join('\n  ')}${problems.length > 50 ? `\n  … and ${problems.length - 50} more` : ''}`,
    );
  }
  console.log(`${summary}.`);
  if (!process.env.KEEP_TEST_LOGS) rmSync(dir, { recursive: true, force: true });
  else console.log(`The run's logs are in ${dir}.`);
}

module.exports = { openRun, closeRun };
