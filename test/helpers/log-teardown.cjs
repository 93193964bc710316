// globalTeardown of the lanes that need no engine: the log scan, if this is the run's last lane hook (test-run.cjs).
const { closeRun } = require('./test-run.cjs');

module.exports = async function logTeardown(globalConfig) {
  await closeRun(globalConfig);
};
