// jest's globalSetup. jest loads it with Node's own require, which cannot map the project's
// `.js` import specifiers to `.ts` files, so tsx loads the TypeScript.
const { tsImport } = require('tsx/esm/api');

module.exports = async function globalSetup() {
  const { startTestDynamo } = await tsImport('./test-dynamo.ts', __filename);
  // globalTeardown runs in this same process.
  globalThis.__testDynamo = await startTestDynamo();
};
