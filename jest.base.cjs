/**
 * What every jest project of the repository shares (jest.config.cjs, jest.aws-api.config.cjs).
 * The project is ES modules; jest runs it in its fast CommonJS mode, with @swc/jest
 * compiling each file (middy's ESM-only packages included) to CommonJS.
 * @type {import('jest').Config}
 */
module.exports = {
  rootDir: __dirname,
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
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 120000,
};
