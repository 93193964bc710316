/**
 * Builds the CDK app for one stage (`-c stage=dev|prod`), with the cdk-nag AWS
 * Solutions checks as a synth-time validation: an unacknowledged finding fails synth.
 * Used by bin/app.ts and by test/infra.
 */
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type PlatformSettings, platformOf, readPlatformSettings } from './platform/settings.js';
import { DeploymentPlatformStack } from './platform/stack.js';
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
  /** The ECS platform's stack, with `-c platform=ecs` only. */
  readonly platform?: DeploymentPlatformStack;
}

export function buildApp(options: BuildOptions = {}): BuiltApp {
  const app = new App({ context: options.context, outdir: options.outdir });
  const lookup = (key: string) => app.node.tryGetContext(key);
  let settings = settingsFromNode(app.node);
  let platform: DeploymentPlatformStack | undefined;
  let platformSettings: PlatformSettings | undefined;
  if (platformOf(lookup) === 'ecs') {
    platformSettings = readPlatformSettings(settings.stage, lookup);
    // The deployments' URLs are under the platform's domain.
    settings = { ...settings, appDomain: platformSettings.domain };
    platform = addPlatformStack(app, platformSettings);
  }
  const stack = addStack(app, settings, undefined, platformSettings);
  // `cdk deploy --all` deploys the platform first: the API stack reads its SSM parameters.
  if (platform) stack.addStackDependency(platform);
  if (options.nag ?? true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, settings, platform };
}

/**
 * The stack for one set of settings, named after its stage. `id` is the construct id, the
 * stage's stack name unless one app holds the same stage twice (npm run validate:aws).
 */
export function addStack(app: App, settings: Settings, id = stackName(settings.stage), platform?: PlatformSettings): DeploymentApiStack {
  return new DeploymentApiStack(app, id, {
    settings,
    platform,
    stackName: stackName(settings.stage),
    description: `Deployment Management API (${settings.stage})`,
    // Environment-agnostic unless the CLI knows the account (synth works without credentials).
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
}

/** The ECS platform's shared stack (`-c platform=ecs`), `DeploymentPlatform-<stage>` unless `id` says otherwise. */
export function addPlatformStack(
  app: App,
  platform: PlatformSettings,
  id = `DeploymentPlatform-${platform.stage}`,
): DeploymentPlatformStack {
  return new DeploymentPlatformStack(app, id, {
    platform,
    stackName: `DeploymentPlatform-${platform.stage}`,
    description: `Deployment Management API: the ECS platform's shared resources (${platform.stage})`,
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
}
