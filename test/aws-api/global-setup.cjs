// The AWS-API suite's globalSetup: moto's server and DynamoDB Local on free ports, their
// endpoints in the environment the workers inherit. Without moto the run stops here, with
// one line saying how to install it. jest loads this with Node's own require: tsx loads the TypeScript.
const { tsImport } = require('tsx/esm/api');

module.exports = async function globalSetup() {
  const { startMoto, motoEndpoints, MotoMissingError } = await tsImport('./moto.ts', __filename);
  const { freePort } = await tsImport('../helpers/local-process.ts', __filename);
  const { startTestDynamo } = await tsImport('../helpers/test-dynamo.ts', __filename);
  try {
    globalThis.__moto = await startMoto(await freePort());
  } catch (e) {
    if (!(e instanceof MotoMissingError)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  Object.assign(process.env, motoEndpoints(globalThis.__moto.endpoint));
  // globalTeardown runs in this same process.
  globalThis.__testDynamo = await startTestDynamo();
};
