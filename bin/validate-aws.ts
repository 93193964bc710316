/**
 * `npm run validate:aws`: what AWS would refuse or flag, checked offline (decision 173). One
 * CDK app holds the prod stage three times, with and without a custom domain and with the ECS
 * platform (`-c platform=ecs`: the platform stack beside it), unbundled (the templates are
 * the same, only asset hashes differ), and its one synthesis runs, on every template, nested
 * stacks included:
 *  - cdk-nag's AWS Solutions checks, as every synth does;
 *  - the AWS Control Tower proactive controls (cfn-guard rules, @cdklabs/cdk-validator-cfnguard);
 *  - cfn-lint, against the resource specifications of us-east-1 and one other region, started
 *    as soon as the templates are written so that it runs while cfn-guard does.
 * A finding of any of them is fixed or acknowledged with its reason in the construct that
 * makes the resource (infra/aws/validators.ts). Prints per variant the counts and each
 * finding left on one line; exits 0 when none is left, 1 when some are, 2 when cfn-lint is
 * missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addPlatformStack, addStack } from '../infra/aws/app.js';
import { readPlatformSettings } from '../infra/aws/platform/settings.js';
import { readSettings } from '../infra/aws/settings.js';
import { CFN_LINT_MISSING, CfnLint, ControlTowerRules, cfnLintVersion } from '../infra/aws/validators.js';

/** Regions cfn-lint checks against: us-east-1 (where some resources' properties differ, a dashboard's Tags for one) and one other. */
export const LINT_REGIONS = ['us-east-1', 'eu-west-1'];
const CERT = 'arn:aws:acm:eu-west-1:123456789012:certificate/0c8d6a2e-1111-2222-3333-444455556666';
/** The variants, by the construct id of their stack (both are named DeploymentApi-prod). */
const VARIANTS: Record<string, { label: string; context: Record<string, string> }> = {
  'DeploymentApi-prod-domain': {
    label: 'prod, custom domain',
    context: { stage: 'prod', domainName: 'api.example.org', certificateArn: CERT, alarmEmail: 'oncall@example.org' },
  },
  'DeploymentApi-prod': { label: 'prod, no custom domain', context: { stage: 'prod' } },
  'DeploymentApi-prod-platform': {
    label: 'prod, ECS platform',
    context: { stage: 'prod', platform: 'ecs', domain: 'apps.example.org', hostedZoneId: 'Z0123456789ABCDEFGHIJ', albShards: '2' },
  },
  // Made with the variant above: its findings are reported under its own name.
  'DeploymentPlatform-prod': { label: 'prod, the ECS platform stack', context: {} },
};
/** The validators' plugin names in the report, and how the counts name them. */
const VALIDATORS: Record<string, string> = {
  AwsSolutions: 'cdk-nag',
  'cdk-validator-cfnguard': 'Control Tower',
  'cfn-lint': 'cfn-lint',
};

interface Violation {
  ruleName: string;
  description?: string;
  violatingConstructs: { constructPath?: string; resourceLogicalId?: string; templatePath?: string }[];
}

interface Report {
  pluginReports: {
    pluginName: string;
    conclusion?: string;
    metadata?: { error?: string };
    violations: Violation[];
    suppressedViolations?: Violation[];
  }[];
}

interface Finding {
  readonly validator: string;
  readonly line: string;
  readonly acknowledged: boolean;
}

/**
 * The report's findings, each with the construct id of the stack it is in ('' when it names
 * none): one per resource, left or acknowledged; a validator that failed is a finding too.
 */
function findings(report: Report): (Finding & { stack: string })[] {
  return report.pluginReports.flatMap((p) => {
    const validator = VALIDATORS[p.pluginName] ?? p.pluginName;
    const failed =
      p.conclusion === 'failure' && p.violations.length === 0
        ? [{ validator, stack: '', acknowledged: false, line: `${validator} failed: ${p.metadata?.error ?? 'no report'}` }]
        : [];
    const listed = [
      ...p.violations.map((v) => ({ v, acknowledged: false })),
      ...(p.suppressedViolations ?? []).map((v) => ({ v, acknowledged: true })),
    ].flatMap(({ v, acknowledged }) =>
      v.violatingConstructs.map((c) => {
        const where = c.constructPath ?? `${c.templatePath} ${c.resourceLogicalId}`;
        const what = (v.description ?? '').split('\n')[0]!.trim();
        return {
          validator,
          acknowledged,
          stack: c.constructPath?.split('/')[0] ?? '',
          line: `${validator} ${v.ruleName} at ${where}: ${what}`,
        };
      }),
    );
    return [...failed, ...listed];
  });
}

/** `cdk-nag 0, Control Tower 0 (103 acknowledged), cfn-lint 0`: every validator, and any other plugin that reported. */
function counts(found: readonly Finding[]): string {
  const names = [...new Set([...Object.values(VALIDATORS), ...found.map((f) => f.validator)])];
  return names
    .map((name) => {
      const left = found.filter((f) => f.validator === name && !f.acknowledged).length;
      const acknowledged = found.filter((f) => f.validator === name && f.acknowledged).length;
      return `${name} ${left}${acknowledged > 0 ? ` (${acknowledged} acknowledged)` : ''}`;
    })
    .join(', ');
}

function main(): number {
  const lintVersion = cfnLintVersion();
  if (!lintVersion) {
    console.error(CFN_LINT_MISSING);
    return 2;
  }
  const started = Date.now();
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'validate-aws-'));
  try {
    const app = new App({
      outdir,
      context: {
        'aws:cdk:bundling-stacks': [],
        // The report is read and printed below, not thrown by synth.
        '@aws-cdk/core:failSynthOnValidationErrors': false,
      },
    });
    for (const [id, { context }] of Object.entries(VARIANTS)) {
      if (!context.stage) continue;
      const settings = readSettings((key) => context[key]);
      const platform = context.platform === 'ecs' ? readPlatformSettings(settings.stage, (key) => context[key]) : undefined;
      const stack = addStack(app, platform ? { ...settings, appDomain: platform.domain } : settings, id, platform);
      if (platform) stack.addStackDependency(addPlatformStack(app, platform));
    }
    const lint = new CfnLint(lintVersion, LINT_REGIONS, outdir);
    Validations.of(app).addPlugins(lint.starter, new AwsSolutionsChecks(app), new ControlTowerRules(), lint);
    app.synth();
    const found = findings(JSON.parse(fs.readFileSync(path.join(outdir, 'validation-report.json'), 'utf8')) as Report);

    for (const [id, { label }] of Object.entries(VARIANTS)) {
      const own = found.filter((f) => f.stack === id);
      console.log(`${label} (${id}): ${counts(own)}`);
      for (const f of own.filter((f) => !f.acknowledged)) console.log(`  ${f.line}`);
    }
    // What the report places in neither variant's stack: a validator that failed, say.
    for (const f of found.filter((f) => !f.acknowledged && !(f.stack in VARIANTS))) console.log(`  ${f.line}`);
    const left = found.filter((f) => !f.acknowledged).length;
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(
      left === 0
        ? `validate:aws: no findings (${lintVersion} in ${LINT_REGIONS.join(', ')}; ${seconds} s)`
        : `validate:aws: ${left} finding(s) above; fix each, or acknowledge it with its reason in the construct that makes the resource (${seconds} s)`,
    );
    return left === 0 ? 0 : 1;
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

process.exitCode = main();
