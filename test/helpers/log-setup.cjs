// globalSetup of the lanes that need no engine (unit, infra, tools): only the run's log
// directory, so that what their tests log is scanned for secrets too (test-run.cjs).
const { openRun } = require('./test-run.cjs');

module.exports = async function logSetup() {
  openRun();
};
