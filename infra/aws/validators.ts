/**
 * The validators `npm run validate:aws` adds to a synthesis beside cdk-nag (decision 173), as
 * CDK validation plugins: their findings land in the same report as cdk-nag's, on the
 * construct that made the resource, and are acknowledged the same way,
 * `Validations.of(construct).acknowledge({ id, reason })` (cfn-lint's as `cfn-lint::<rule>`).
 *  - ControlTowerRules: AWS Control Tower's proactive controls, cfn-guard rules run by
 *    @cdklabs/cdk-validator-cfnguard, on the nested stacks' templates too (CDK hands a plugin
 *    only the top-level ones).
 *  - CfnLint: cfn-lint, a Python tool, against the resource specifications of the given
 *    regions. `starter` begins it as soon as the templates are written, so that it runs while
 *    the plugins registered after it do.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  type IPolicyValidationContextBeta1,
  type IPolicyValidationPluginBeta1,
  NestedStack,
  type PolicyValidationPluginReportBeta1,
  type PolicyViolationBeta1,
} from 'aws-cdk-lib';

/** The one line `npm run validate:aws` prints, and exits 2, when cfn-lint is not on the PATH. */
export const CFN_LINT_MISSING =
  'cfn-lint is not installed: install it with Python (`pip install cfn-lint`, or `pipx install cfn-lint`) and run again.';

/** `cfn-lint --version`'s answer, or undefined when there is no such command. */
export function cfnLintVersion(command = 'cfn-lint'): string | undefined {
  const r = spawnSync(command, ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The templates of a synthesis: the top-level ones CDK hands a plugin, then every nested stack's. */
function withNestedTemplates(context: IPolicyValidationContextBeta1): string[] {
  const dir = path.dirname(context.templatePaths[0] ?? '.');
  const nested = context.appConstruct.node
    .findAll()
    .filter(NestedStack.isNestedStack)
    .map((s) => path.join(dir, s.templateFile));
  return [...new Set([...context.templatePaths, ...nested])];
}

/** @cdklabs/cdk-validator-cfnguard's Control Tower rules, on the nested templates too; its findings keep its name. */
export class ControlTowerRules implements IPolicyValidationPluginBeta1 {
  private readonly guard = new CfnGuardValidator({ maxBuffer: 256 * 1024 * 1024 });
  readonly name = this.guard.name;
  readonly version = this.guard.version;
  readonly ruleIds = this.guard.ruleIds;

  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    return this.guard.validate({ ...context, templatePaths: withNestedTemplates(context) });
  }
}

/** One entry of `cfn-lint --format json`. */
export interface CfnLintMatch {
  readonly Filename: string;
  readonly Level: string;
  readonly Message: string;
  readonly Location: { readonly Path: readonly (string | number)[]; readonly Start: { readonly LineNumber: number } };
  readonly Rule: { readonly Id: string; readonly ShortDescription: string };
}

/**
 * cfn-lint's matches as violations: one per match, its message as the description, on the
 * resource it names (a match outside Resources, on a parameter or an output, is put on the
 * template's first element of its path so that it still shows).
 */
export function cfnLintViolations(matches: readonly CfnLintMatch[]): PolicyViolationBeta1[] {
  return matches.map((m) => {
    const [section, name] = m.Location.Path;
    return {
      ruleName: m.Rule.Id,
      description: `${m.Rule.ShortDescription}: ${m.Message}`,
      severity: m.Level === 'Error' ? 'error' : m.Level === 'Warning' ? 'warning' : 'info',
      violatingResources: [
        {
          resourceLogicalId: section === 'Resources' && name !== undefined ? String(name) : String(section ?? ''),
          templatePath: m.Filename,
          locations: [m.Location.Path.join('.')],
        },
      ],
    };
  });
}

/** How long cfn-lint may take; it takes about a minute for the four templates of validate:aws. */
const CFN_LINT_TIMEOUT_MS = 15 * 60_000;

/** Sleeps the thread (the plugins run synchronously inside synthesis). */
const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

export class CfnLint implements IPolicyValidationPluginBeta1 {
  readonly name = 'cfn-lint';
  private run?: { readonly output: string; readonly exitCode: string; readonly pid?: number };

  /**
   * @param version what `cfn-lint --version` answered
   * @param regions the regions whose resource specifications the templates are checked against
   * @param workdir where cfn-lint's output is written while it runs
   */
  constructor(
    readonly version: string,
    private readonly regions: readonly string[],
    private readonly workdir: string,
  ) {}

  /** A plugin to register before slower ones: it starts cfn-lint and reports nothing itself. */
  readonly starter: IPolicyValidationPluginBeta1 = {
    name: 'cfn-lint-start',
    validate: (context) => {
      this.start(context);
      return { success: true, violations: [] };
    },
  };

  private start(context: IPolicyValidationContextBeta1): void {
    if (this.run) return;
    const output = path.join(this.workdir, 'cfn-lint.json');
    const exitCode = path.join(this.workdir, 'cfn-lint.exit');
    // Output to files, not pipes: this thread is busy with the other plugins while cfn-lint runs.
    // The shell writes the exit code last, so that file's presence says cfn-lint is done; an
    // interrupt or a TERM (the timeout below) stops cfn-lint too.
    const script = [
      'cfn-lint "$@" > "$OUTPUT" 2> "$OUTPUT.err" & lint=$!',
      "trap 'kill $lint' INT TERM",
      'wait $lint; code=$?',
      'echo $code > "$EXIT_CODE.tmp" && mv "$EXIT_CODE.tmp" "$EXIT_CODE"',
    ].join('\n');
    const args = ['--regions', ...this.regions, '--format', 'json', '--', ...withNestedTemplates(context)];
    const child = spawn('sh', ['-c', script, 'sh', ...args], {
      stdio: 'ignore',
      env: { ...process.env, OUTPUT: output, EXIT_CODE: exitCode },
    });
    child.unref();
    this.run = { output, exitCode, pid: child.pid };
  }

  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    this.start(context);
    const run = this.run!;
    const deadline = Date.now() + CFN_LINT_TIMEOUT_MS;
    while (!fs.existsSync(run.exitCode)) {
      if (Date.now() > deadline) {
        if (run.pid) process.kill(run.pid, 'SIGTERM');
        throw new Error(`cfn-lint did not finish in ${CFN_LINT_TIMEOUT_MS / 60_000} minutes`);
      }
      sleep(100);
    }
    const text = fs.readFileSync(run.output, 'utf8');
    const code = Number(fs.readFileSync(run.exitCode, 'utf8'));
    let matches: CfnLintMatch[];
    try {
      matches = JSON.parse(text) as CfnLintMatch[];
    } catch {
      const stderr = fs.readFileSync(`${run.output}.err`, 'utf8').trim();
      throw new Error(`cfn-lint exited ${code} without its JSON report: ${stderr || text.trim()}`);
    }
    const violations = cfnLintViolations(matches);
    return { success: violations.length === 0, violations, pluginVersion: this.version };
  }
}
