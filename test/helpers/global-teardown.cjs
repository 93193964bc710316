// jest's globalTeardown: stops the DynamoDB Local that global-setup.cjs started.
module.exports = async function globalTeardown() {
  await globalThis.__testDynamo?.stop();
};
