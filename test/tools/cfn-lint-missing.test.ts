/**
 * `npm run validate:aws` on a machine without cfn-lint (bin/validate-aws.ts): it stops before
 * synthesizing anything, with the one line that says how to install it, and exits 2.
 */
import path from 'node:path';
import { CFN_LINT_MISSING } from '../../infra/aws/validators.js';
import { runProcess } from '../helpers/run-process.js';

it('exits 2 with the install command when cfn-lint is not on the PATH', async () => {
  // Only the directory of the Node that runs the tests: no Python, so no cfn-lint.
  const env = { PATH: path.dirname(process.execPath), HOME: process.env.HOME };
  const r = await runProcess(process.execPath, ['--import', 'tsx', 'bin/validate-aws.ts'], { env });
  expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 2, stdout: '', stderr: `${CFN_LINT_MISSING}\n` });
  expect(CFN_LINT_MISSING).toContain('pip install cfn-lint');
  expect(CFN_LINT_MISSING).not.toContain('\n');
});
