/**
 * `npm run test:aws-api`: the AWS implementations behind the ports (functions/adapters/)
 * against moto's server, an independent implementation of the AWS APIs, with DynamoDB
 * Local for the table. The default `npm test` leaves test/aws-api/ out (jest.config.cjs).
 * @type {import('jest').Config}
 */
const base = require('./jest.config.cjs');

module.exports = {
  ...base,
  testMatch: ['<rootDir>/test/aws-api/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  globalSetup: '<rootDir>/test/aws-api/global-setup.cjs',
  globalTeardown: '<rootDir>/test/aws-api/global-teardown.cjs',
  setupFiles: ['<rootDir>/test/aws-api/env.ts'],
  // No stand-ins (test/helpers/after-env.ts injects them for the default suite): every port keeps its AWS default.
  setupFilesAfterEnv: [],
  maxWorkers: 1,
};
