// jest's globalSetup. jest loads it with Node's own require, which cannot map the project's
// `.js` import specifiers to `.ts` files, so tsx loads the TypeScript.
const { mkdtempSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { tsImport } = require('tsx/esm/api');

module.exports = async function globalSetup() {
  // Every log line of the run goes to files here (log-capture.ts), scanned by global-teardown.cjs.
  // Workers and the processes they start inherit the path.
  process.env.TEST_LOG_DIR = mkdtempSync(path.join(os.tmpdir(), 'deployments-test-logs-'));
  const { startTestDynamo } = await tsImport('./test-dynamo.ts', __filename);
  // globalTeardown runs in this same process.
  globalThis.__testDynamo = await startTestDynamo();
};
