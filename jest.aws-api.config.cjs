/**
 * `npm run test:aws-api`: the AWS implementations behind the ports (functions/adapters/)
 * against moto's server, an independent implementation of the AWS APIs, with DynamoDB
 * Local for the table. No lane of jest.config.cjs holds test/aws-api/, so `npm test`
 * leaves it out.
 * @type {import('jest').Config}
 */
const base = require('./jest.base.cjs');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/aws-api/**/*.test.ts'],
  globalSetup: '<rootDir>/test/aws-api/global-setup.cjs',
  globalTeardown: '<rootDir>/test/aws-api/global-teardown.cjs',
  setupFiles: ['<rootDir>/test/aws-api/env.ts'],
  // No stand-ins (test/helpers/after-env.ts injects them for the engine lanes): every port keeps its AWS default.
  setupFilesAfterEnv: [],
  maxWorkers: 1,
};
