// jest's globalTeardown: stops the DynamoDB Local that global-setup.cjs started, then checks
// the run as a whole: every log line it wrote is scanned for secrets (log-scan.ts), and
// every function with table grants must have sent something the grant check judged
// (grant-check.ts). A finding fails the run; the logs are then kept for a look, as they
// are with KEEP_TEST_LOGS=1, and removed otherwise.
const { globSync, rmSync } = require('node:fs');
const path = require('node:path');
const { tsImport } = require('tsx/esm/api');

async function scanLogs(globalConfig) {
  const dir = process.env.TEST_LOG_DIR;
  const { scanLogDir, verdict, isWholeSuite, registeredCanaries } = await tsImport('./log-scan.ts', __filename);
  const canaries = registeredCanaries();
  if (process.env.TEST_CANARY_DIR) rmSync(process.env.TEST_CANARY_DIR, { recursive: true, force: true });
  const { problems, summary } = verdict(scanLogDir(dir, canaries), isWholeSuite(globalConfig));
  if (problems.length) {
    throw new Error(
      `${summary}. The run's logs are in ${dir}:\n  ${problems.slice(0, 50).join('\n  ')}${problems.length > 50 ? `\n  … and ${problems.length - 50} more` : ''}`,
    );
  }
  console.log(`${summary}.`);
  if (!process.env.KEEP_TEST_LOGS) rmSync(dir, { recursive: true, force: true });
  else console.log(`The run's logs are in ${dir}.`);
}

async function checkGrantCoverage(globalConfig) {
  const dir = process.env.TEST_GRANTS_DIR;
  try {
    const { grantReport } = await tsImport('./grant-check.ts', __filename);
    // The files `npm test` runs: test/aws-api/ is a suite of its own (jest.aws-api.config.cjs).
    const files = globSync('test/**/*.test.ts', { cwd: globalConfig.rootDir, exclude: ['test/aws-api/**'] }).map((f) =>
      path.join(globalConfig.rootDir, f),
    );
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
}

module.exports = async function globalTeardown(globalConfig) {
  await globalThis.__testDynamo?.stop();
  const failed = (await Promise.allSettled([scanLogs(globalConfig), checkGrantCoverage(globalConfig)])).filter(
    (r) => r.status === 'rejected',
  );
  if (failed.length) throw new Error(failed.map((r) => r.reason.message).join('\n\n'));
};
