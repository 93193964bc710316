/**
 * The project is ES modules; jest runs it in its fast CommonJS mode, with @swc/jest
 * compiling each file (middy's ESM-only packages included) to CommonJS.
 * @type {import('jest').Config}
 */
module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.[tj]sx?$': ['@swc/jest'] },
  // middy and jose publish ES modules only: compile them too.
  transformIgnorePatterns: ['/node_modules/(?!@middy/|jose/)'],
  moduleNameMapper: {
    // Relative imports name the compiled `.js` file, as Node's ESM resolution wants; jest reads the `.ts`.
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // middy's exports map offers only the `import` condition, which jest's CommonJS resolver does not take.
    '^@middy/([^/]+)$': '<rootDir>/node_modules/@middy/$1/index.js',
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The AWS-API suite runs on its own, against moto (jest.aws-api.config.cjs, `npm run test:aws-api`).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/aws-api/'],
  globalSetup: '<rootDir>/test/helpers/global-setup.cjs',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.cjs',
  setupFiles: ['<rootDir>/test/helpers/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/helpers/capture-logs.ts', '<rootDir>/test/helpers/after-env.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
