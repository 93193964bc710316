// The AWS-API suite's globalTeardown: stops what global-setup.cjs started.
module.exports = async function globalTeardown() {
  await Promise.all([globalThis.__testDynamo?.stop(), globalThis.__moto?.stop()]);
};
