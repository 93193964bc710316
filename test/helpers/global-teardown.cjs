// jest's globalTeardown: stops the DynamoDB Local that global-setup.cjs started, and after a
// whole run, fails it if a function with table grants sent nothing the grant check judged.
const { globSync, rmSync } = require('node:fs');
const path = require('node:path');
const { tsImport } = require('tsx/esm/api');

module.exports = async function globalTeardown(globalConfig) {
  await globalThis.__testDynamo?.stop();
  const dir = process.env.TEST_GRANTS_DIR;
  if (!dir) return;
  try {
    const { grantReport } = await tsImport('./grant-check.ts', __filename);
    const files = globSync('test/**/*.test.ts', { cwd: globalConfig.rootDir }).map((f) => path.join(globalConfig.rootDir, f));
    const report = grantReport(dir, files);
    if (!report) return; // a partial run proves nothing about coverage
    if (report.unjudged.length)
      throw new Error(`No test made these functions send a request the grant check could judge: ${report.unjudged.join(', ')}`);
    console.log(
      `Grant check: ${report.requests} DynamoDB requests of ${report.functions} functions judged against their IAM grants, none refused.`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
