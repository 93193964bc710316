// jest's globalTeardown: stops the DynamoDB Local that global-setup.cjs started, then scans
// every log line the run wrote for secrets (log-scan.ts). A finding fails the run; the logs
// are then kept for a look, as they are with KEEP_TEST_LOGS=1, and removed otherwise.
const { rmSync } = require('node:fs');
const { tsImport } = require('tsx/esm/api');

module.exports = async function globalTeardown(globalConfig) {
  await globalThis.__testDynamo?.stop();
  const dir = process.env.TEST_LOG_DIR;
  const { scanLogDir, verdict, isWholeSuite } = await tsImport('./log-scan.ts', __filename);
  const { problems, summary } = verdict(scanLogDir(dir), isWholeSuite(globalConfig));
  if (problems.length) {
    throw new Error(
      `${summary}. The run's logs are in ${dir}:\n  ${problems.slice(0, 50).join('\n  ')}${problems.length > 50 ? `\n  … and ${problems.length - 50} more` : ''}`,
    );
  }
  console.log(`${summary}.`);
  if (!process.env.KEEP_TEST_LOGS) rmSync(dir, { recursive: true, force: true });
  else console.log(`The run's logs are in ${dir}.`);
};
