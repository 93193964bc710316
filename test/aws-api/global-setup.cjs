// The AWS-API suite's globalSetup: moto's server on a free port, the production table
// created on its DynamoDB, and its endpoint in the environment the workers inherit.
// Without moto the run stops here, with one line saying how to install it. jest loads
// this with Node's own require: tsx loads the TypeScript.
const { tsImport } = require('tsx/esm/api');
const { openRun } = require('../helpers/test-run.cjs');

module.exports = async function globalSetup() {
  // The run's log directory: what the processes its tests start (npm start) log is scanned for secrets too.
  openRun();
  const { startMoto, motoEndpoints, createMotoTable, MotoMissingError } = await tsImport('./moto.ts', __filename);
  const { freePort } = await tsImport('../helpers/local-process.ts', __filename);
  try {
    // globalTeardown runs in this same process.
    globalThis.__moto = await startMoto(await freePort());
  } catch (e) {
    if (!(e instanceof MotoMissingError)) throw e;
    process.stderr.write(`${e.message}\n`);
    process.exit(1);
  }
  process.env.MOTO_ENDPOINT = globalThis.__moto.endpoint;
  Object.assign(process.env, motoEndpoints(globalThis.__moto.endpoint));
  try {
    await createMotoTable(globalThis.__moto.endpoint, 'deployments-test');
  } catch (e) {
    // jest skips globalTeardown when this fails.
    await globalThis.__moto.stop();
    throw e;
  }
};
