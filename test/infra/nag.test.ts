/** cdk-nag's AWS Solutions checks on the dev stage (infra/aws/nag.ts): every finding fixed or acknowledged. */
import { stageOf } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('cdk-nag (AwsSolutions)', () => {
  it('synthesizes with no unacknowledged finding (errors would have failed synth; warnings too are acknowledged)', () => {
    expect(s.report.pluginReports.flatMap((p) => p.violations)).toEqual([]);
  });
});
