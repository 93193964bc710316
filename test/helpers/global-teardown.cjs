// globalTeardown of the engine lanes: stops the DynamoDB Local that global-setup.cjs started,
// then checks the run: every function with table grants must have sent something the grant
// check judged (grant-check.ts), and every log line of the run is scanned for secrets
// (test-run.cjs, once the run's last lane hook is done). A finding fails the run.
const { rmSync } = require('node:fs');
const { tsImport } = require('tsx/esm/api');
const { laneFiles } = require('./lanes.cjs');
const { closeRun } = require('./test-run.cjs');

async function checkGrantCoverage(globalConfig) {
  const dir = process.env.TEST_GRANTS_DIR;
  try {
    const { grantReport } = await tsImport('./grant-check.ts', __filename);
    // The integration lane runs every function's code in process; the e2e lane's few
    // in-process requests count when it ran too (decision 208).
    const report = grantReport(dir, laneFiles(globalConfig.rootDir, 'integration'));
    if (!report) return; // a partial run proves nothing about coverage
    if (report.unjudged.length)
      throw new Error(`No test made these functions send a request the grant check could judge: ${report.unjudged.join(', ')}`);
    console.log(
      `Grant check: ${report.requests} DynamoDB requests of ${report.functions} functions judged against their IAM grants, none refused.`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = async function globalTeardown(globalConfig) {
  await globalThis.__testDynamo?.stop();
  const failed = (await Promise.allSettled([checkGrantCoverage(globalConfig), closeRun(globalConfig)])).filter(
    (r) => r.status === 'rejected',
  );
  if (failed.length) throw new Error(failed.map((r) => r.reason.message).join('\n\n'));
};
