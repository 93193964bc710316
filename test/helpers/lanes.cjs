// The test lanes (decision 206): each lane is a folder of test/ and a jest project of
// jest.config.cjs, named alike, so a file's folder says what it needs to run. The global
// hooks read this table too: the grant check's coverage and the log scan's floors are
// judged per lane.
const path = require('node:path');
const { globSync } = require('node:fs');

/**
 * `engine`: the lane's tests run handlers on DynamoDB Local and the local Step Functions
 * endpoint, their requests judged by the grant check (global-setup.cjs, after-env.ts).
 * The other lanes get only the handler environment and the log capture (log-setup.cjs).
 * `guarded`: a test that listens on a port or starts Java fails (lane-environment.cjs).
 */
const LANES = {
  unit: { engine: false, guarded: true },
  infra: { engine: false, guarded: false },
  tools: { engine: false, guarded: false },
  integration: { engine: true, guarded: false },
  e2e: { engine: true, guarded: false },
};

/** The test files of a lane, as absolute paths. */
function laneFiles(rootDir, lane) {
  return globSync(`test/${lane}/**/*.test.ts`, { cwd: rootDir }).map((f) => path.join(rootDir, f));
}

module.exports = { LANES, laneFiles };
