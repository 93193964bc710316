// jest's globalSetup. jest loads it with Node's own require, which cannot map the project's
// `.js` import specifiers to `.ts` files, so tsx loads the TypeScript.
const { mkdtempSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tsImport } = require('tsx/esm/api');

module.exports = async function globalSetup(globalConfig) {
  // Every log line of the run goes to files here (log-capture.ts), scanned by global-teardown.cjs.
  // Workers and the processes they start inherit the path.
  process.env.TEST_LOG_DIR = mkdtempSync(path.join(os.tmpdir(), 'deployments-test-logs-'));
  // Where each test file records which functions' requests were judged against their grants.
  process.env.TEST_GRANTS_DIR = mkdtempSync(path.join(os.tmpdir(), 'grants-'));
  // Secrets the tests register for the scan to look for as they are (log-scan.ts, registerCanary).
  process.env.TEST_CANARY_DIR = mkdtempSync(path.join(os.tmpdir(), 'canaries-'));
  const { startTestDynamo } = await tsImport('./test-dynamo.ts', __filename);
  const { freePort } = await tsImport('./local-process.ts', __filename);
  // globalTeardown runs in this same process.
  globalThis.__testDynamo = await startTestDynamo();
  // A port per worker for the dashboard's emulated user pool (test/helpers/env.ts).
  const ports = [];
  for (let i = 0; i < globalConfig.maxWorkers; i++) ports.push(await freePort());
  process.env.TEST_DASHBOARD_PORTS = ports.join(',');
};
