// The AWS-API suite's globalTeardown: stops the moto_server global-setup.cjs started.
const { closeRun } = require('../helpers/test-run.cjs');

module.exports = async function globalTeardown(globalConfig) {
  await globalThis.__moto?.stop();
  await closeRun(globalConfig);
};
