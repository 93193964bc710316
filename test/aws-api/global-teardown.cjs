// The AWS-API suite's globalTeardown: stops the moto_server global-setup.cjs started.
module.exports = async function globalTeardown() {
  await globalThis.__moto?.stop();
};
