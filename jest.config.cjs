/**
 * The suite as jest projects, one per lane (test/helpers/lanes.cjs, decision 206):
 * `npx jest` runs them all, `npm run test:unit` (`--selectProjects unit`) one. A lane gets
 * only the setup its tests need: DynamoDB Local and the Step Functions endpoint for the
 * engine lanes, the handler environment and the log capture for every lane.
 * @type {import('jest').Config}
 */
const { LANES } = require('./test/helpers/lanes.cjs');
const base = require('./jest.base.cjs');

const helper = (file) => `<rootDir>/test/helpers/${file}`;

/** @param {string} name @param {{engine: boolean, guarded: boolean}} lane */
const project = (name, { engine, guarded }) => ({
  ...base,
  displayName: name,
  testMatch: [`<rootDir>/test/${name}/**/*.test.ts`],
  // jest runs each hook module once a run, however many lanes name it: the engine lanes share
  // one DynamoDB Local. The log scan runs once, after the last lane's teardown (test-run.cjs).
  globalSetup: helper(engine ? 'global-setup.cjs' : 'log-setup.cjs'),
  globalTeardown: helper(engine ? 'global-teardown.cjs' : 'log-teardown.cjs'),
  ...(guarded ? { testEnvironment: helper('lane-environment.cjs') } : {}),
  setupFiles: [helper('env.ts')],
  setupFilesAfterEnv: [helper('capture-logs.ts'), ...(engine ? [helper('after-env.ts')] : [])],
});

module.exports = {
  projects: Object.entries(LANES).map(([name, lane]) => project(name, lane)),
  testTimeout: base.testTimeout,
  maxWorkers: 2,
  // A failing file's logged faults are printed with its failure (failure-logs.cjs).
  reporters: ['default', helper('failure-logs.cjs')],
};
