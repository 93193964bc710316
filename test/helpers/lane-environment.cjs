// The unit lane's test environment (decision 207): jest's node environment, in which a test
// that listens on a port, opens a connection or starts Java (DynamoDB Local) fails at once,
// naming the lane it belongs in. The unit lane runs with no free port and no Java; a test
// that needs either would pass on one machine and fail on the next. Core modules are shared
// by every test file a jest worker runs, of any lane, so the refusals are put in place for
// each file of this lane as its environment is set up and taken away as it is torn down,
// which jest does even when the file fails.
const childProcess = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

const refusal = (what) =>
  new Error(`The unit lane runs no ${what} (decision 207): move this test to test/integration, test/e2e or test/tools.`);

const isJava = (file) => path.basename(String(file)) === 'java';

/** [object, method name, replacement] for each refusal. */
const REFUSALS = [
  [
    net.Server.prototype,
    'listen',
    () =>
      function listen() {
        throw refusal('server listening on a port');
      },
  ],
  [
    net.Socket.prototype,
    'connect',
    () =>
      function connect() {
        throw refusal('network connection');
      },
  ],
  // Every asynchronous child process (spawn, execFile, exec, fork) starts here.
  [
    childProcess.ChildProcess.prototype,
    'spawn',
    (original) =>
      function spawn(options) {
        if (isJava(options?.file)) throw refusal('Java (DynamoDB Local)');
        return original.call(this, options);
      },
  ],
  // local/dynamodb-local.ts asks `java --list-modules` synchronously first.
  [
    childProcess,
    'spawnSync',
    (original) =>
      function spawnSync(file, ...rest) {
        if (isJava(file)) throw refusal('Java (DynamoDB Local)');
        return original.call(this, file, ...rest);
      },
  ],
];

class UnitLaneEnvironment extends TestEnvironment {
  #restore = [];

  async setup() {
    await super.setup();
    for (const [object, name, replace] of REFUSALS) {
      const original = object[name];
      object[name] = replace(original);
      this.#restore.push(() => {
        object[name] = original;
      });
    }
  }

  async teardown() {
    for (const restore of this.#restore.splice(0).reverse()) restore();
    await super.teardown();
  }
}

module.exports = UnitLaneEnvironment;
