/**
 * Builds the CDK app for one stage (`-c stage=dev|prod`), with the cdk-nag AWS
 * Solutions checks as a synth-time validation: an unacknowledged finding fails synth.
 * Used by bin/app.ts and by test/infra.
 */
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type Settings, settingsFromNode, stackName } from './settings.js';
import { DeploymentApiStack } from './stack.js';

export interface BuildOptions {
  /** Context for tests; the CLI passes `-c` values through the environment instead. */
  readonly context?: AppProps['context'];
  readonly outdir?: string;
  /** Run cdk-nag during synth (default true). */
  readonly nag?: boolean;
}

export interface BuiltApp {
  readonly app: App;
  readonly stack: DeploymentApiStack;
  readonly settings: Settings;
}

export function buildApp(options: BuildOptions = {}): BuiltApp {
  const app = new App({ context: options.context, outdir: options.outdir });
  const settings = settingsFromNode(app.node);
  const stack = addStack(app, settings);
  if (options.nag ?? true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, settings };
}

/**
 * The stack for one set of settings, named after its stage. `id` is the construct id, the
 * stage's stack name unless one app holds the same stage twice (npm run validate:aws).
 */
export function addStack(app: App, settings: Settings, id = stackName(settings.stage)): DeploymentApiStack {
  return new DeploymentApiStack(app, id, {
    settings,
    stackName: stackName(settings.stage),
    description: `Deployment Management API (${settings.stage})`,
    // Environment-agnostic unless the CLI knows the account (synth works without credentials).
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
}
