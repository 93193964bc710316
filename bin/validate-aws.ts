/**
 * `npm run validate:aws`: what AWS would refuse or flag, checked offline. Synthesizes the
 * prod stage with and without a custom domain (without bundling: the templates are the
 * same, only asset hashes differ) and runs on each template, nested stacks included:
 *  - the AWS Control Tower proactive controls (CloudFormation Guard rules, through
 *    @cdklabs/cdk-validator-cfnguard, which ships its own cfn-guard), as a synth-time
 *    validation beside cdk-nag, so a finding is acknowledged where cdk-nag's are
 *    (Validations.of(construct).acknowledge in the construct that makes the resource);
 *  - cfn-lint, against the resource specifications of us-east-1 and one other region.
 * Exits non-zero on any finding that is not acknowledged.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import { Validations } from 'aws-cdk-lib';
import { buildApp } from '../infra/aws/app.js';

/** Regions cfn-lint checks against: us-east-1 (where CloudFront's and some resources' rules differ) and one other. */
export const LINT_REGIONS = ['us-east-1', 'eu-west-1'];
const CERT = 'arn:aws:acm:eu-west-1:123456789012:certificate/0c8d6a2e-1111-2222-3333-444455556666';
export const VARIANTS: Record<string, Record<string, string>> = {
  'prod, custom domain': { stage: 'prod', domainName: 'api.example.org', certificateArn: CERT, alarmEmail: 'oncall@example.org' },
  'prod, no custom domain': { stage: 'prod' },
};

function cfnLintVersion(): string | undefined {
  const r = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Synthesizes one variant with the guard rules on; returns the template files and the unacknowledged guard and nag findings. */
function synthesize(context: Record<string, string>, outdir: string): { templates: string[]; findings: string[] } {
  const { app } = buildApp({ context: { ...context, 'aws:cdk:bundling-stacks': [] }, outdir, nag: true });
  Validations.of(app).addPlugins(new CfnGuardValidator({ maxBuffer: 64 * 1024 * 1024 }));
  const findings: string[] = [];
  try {
    app.synth();
  } catch (e) {
    findings.push(String((e as Error).message));
  }
  const reportFile = path.join(outdir, 'validation-report.json');
  if (fs.existsSync(reportFile)) {
    const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as {
      pluginReports: {
        pluginName: string;
        violations: { ruleName: string; description?: string; violatingConstructs: { constructPath: string }[] }[];
      }[];
    };
    for (const p of report.pluginReports)
      for (const v of p.violations)
        for (const c of v.violatingConstructs) findings.push(`${p.pluginName} ${v.ruleName} at ${c.constructPath}: ${v.description ?? ''}`);
  }
  const templates = fs
    .readdirSync(outdir)
    .filter((f) => f.endsWith('.template.json'))
    .map((f) => path.join(outdir, f));
  return { templates, findings };
}

function main(): number {
  const lint = cfnLintVersion();
  if (!lint) {
    console.error(
      'cfn-lint is not installed. Install it with Python: `pip install cfn-lint` (or `pipx install cfn-lint`), then run again.',
    );
    return 2;
  }
  let failed = false;
  for (const [name, context] of Object.entries(VARIANTS)) {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'validate-aws-'));
    try {
      const { templates, findings } = synthesize(context, outdir);
      console.log(`${name}: ${templates.length} templates; Control Tower proactive controls and cdk-nag: ${findings.length} finding(s)`);
      for (const f of findings) console.log(`  ${f}`);
      const r = spawnSync('cfn-lint', ['--regions', ...LINT_REGIONS, '--format', 'parseable', '--', ...templates], { encoding: 'utf8' });
      const lines = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
      console.log(`${name}: ${lint} in ${LINT_REGIONS.join(', ')}: ${lines.length} finding(s)`);
      for (const l of lines) console.log(`  ${path.basename(l)}`);
      if (findings.length > 0 || r.status !== 0) failed = true;
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  }
  console.log(
    failed
      ? 'validate:aws: findings above (fix them, or acknowledge them with a reason in the construct that makes the resource)'
      : 'validate:aws: no findings',
  );
  return failed ? 1 : 0;
}

process.exitCode = main();
