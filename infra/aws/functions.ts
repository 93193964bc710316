/**
 * One Lambda function per handler module, with the defaults every function shares:
 * Node.js 24 on arm64, bundled by the local esbuild (no Docker), X-Ray tracing, its
 * own log group and its own role. The role's only data permissions are the ones
 * FUNCTION_ACCESS declares for the function, turned into policy statements by
 * function-grants.ts.
 */

import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type CfnResource, Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { DOCS_ASSET_NAMES, SWAGGER_UI_DIST } from '../../contract/docs-assets.js';
import { type FunctionKind, functionLimits, type LIMIT_OVERRIDES } from '../function-limits.js';
import { FUNCTION_ACCESS, type FunctionAccess, type FunctionName, usesTable } from './function-access.js';
import { type FunctionEnvName, functionEnv } from './function-env.js';
import { type AccessTargets, grantAccess } from './function-grants.js';
import { dropRoleDependsOn, LOG_GROUP_KMS, OUTSIDE_VPC } from './nag.js';
import { type DriverTargets, grantDriver, PLATFORM_USE } from './platform/driver-grants.js';
import type { Settings } from './settings.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');

export const entryOf = (kind: FunctionKind, name: string): string => path.join(REPO_ROOT, 'functions', kind, `${name}.ts`);

/** `create-deployment` → `CreateDeployment` (construct ids). */
export const pascalCase = (kebab: string): string =>
  kebab
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/**
 * Files a function reads at run time that esbuild cannot follow, copied next to its
 * bundle, and the variable that tells the code where they are.
 */
interface RuntimeFiles {
  readonly from: string;
  readonly files: readonly string[];
  /** Directory inside the bundle (Lambda unpacks it in /var/task). */
  readonly into: string;
  readonly envVar: FunctionEnvName;
}

function swaggerUiFiles(): RuntimeFiles {
  const from = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  // The asset names the docs page serves; those not in the package (its own init script) are generated in code.
  return { from, files: DOCS_ASSET_NAMES.filter((f) => fs.existsSync(path.join(from, f))), into: 'swagger-ui', envVar: SWAGGER_UI_DIST };
}

const RUNTIME_FILES: Partial<Record<FunctionName, () => RuntimeFiles>> = {
  'get-docs': swaggerUiFiles,
};

/**
 * Packages a function loads with `import()` only on a path few of its requests take, kept out
 * of its bundle (esbuild leaves the `import()` as written) and copied into the asset's
 * node_modules, where Node finds them on first use: the writers that check a configuration's
 * hibernation schedules load the cron parser only when a configuration brings some (decision 320).
 */
export const LAZY_MODULES: Partial<Record<FunctionName, readonly string[]>> = {
  'create-deployment': ['croner'],
  'update-deployment': ['croner'],
  'dashboard-create-deployment': ['croner'],
  'dashboard-update-deployment': ['croner'],
  'run-hibernation-schedule': ['croner'],
};

/** What esbuild leaves out of a function's bundle: its lazy packages, and the docs' assets' package (found at run time). */
export const externalModulesOf = (name: FunctionName): string[] => ['swagger-ui-dist', ...(LAZY_MODULES[name] ?? [])];

/** A lazy package's files, relative to its folder: its package.json and the ES module its `import` condition names. */
export function lazyModuleFiles(pkg: string): { dir: string; files: string[] } {
  const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  const { exports } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { exports: { '.': { import: { default: string } } } };
  return { dir: path.dirname(manifest), files: ['package.json', path.normalize(exports['.'].import.default)] };
}

/** The shell commands that copy a function's lazy packages into its asset (`output`), run after bundling. */
export const lazyModuleCopies = (name: FunctionName, output: string): string[] =>
  (LAZY_MODULES[name] ?? []).flatMap((pkg) => {
    const { dir, files } = lazyModuleFiles(pkg);
    return files.flatMap((f) => {
      const into = path.join(output, 'node_modules', pkg, path.dirname(f));
      return [`mkdir -p "${into}"`, `cp "${path.join(dir, f)}" "${into}/"`];
    });
  });

const NAMED_BY: Record<FunctionKind, string> = {
  http: 'contract/routes.ts',
  workflow: 'the state machine',
  events: 'EVENTS_FUNCTIONS in infra/aws/function-access.ts',
};

/**
 * How esbuild bundles every function (the benchmark bundles its SDK-only floor with the
 * same options, bench/cold-start.ts).
 */
export const BUNDLE_OPTIONS = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node24',
  // The code is ES modules (middy publishes nothing else); CommonJS dependencies
  // bundled into it still call require, which ESM does not define.
  format: OutputFormat.ESM,
  mainFields: ['module', 'main'] as string[],
  banner: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
} as const;

/** The application log level every function starts with (Lambda's advanced logging controls). */
export const APPLICATION_LOG_LEVEL = lambda.ApplicationLogLevel.DEBUG;

/**
 * Concurrent executions reserved per function when a setting reserves them (and so the
 * most each may use). Their sum must fit the account's quota less the 100 Lambda keeps
 * unreserved; docs/deploy.md states it, and test/infra/prod.test.ts keeps the two equal.
 */
const RESERVED_CONCURRENCY: Record<FunctionKind, number> = { http: 20, workflow: 10, events: 10 };
const RESERVED_OVERRIDES: Partial<Record<FunctionName, number>> = {
  // Each call holds an execution for up to 20 s while it waits.
  'wait-operation': 40,
  // One run at a time: two reconcilers would race on the same operations.
  'reconcile-operations': 1,
  // One round at a time (decision 246): a round that overran its interval must not meet the next.
  'check-health': 1,
  // One round at a time (decision 260): two rounds would visit the same due deployments.
  'run-hibernation-schedule': 1,
};
/** The dashboard's API serves people signed in to a page, not programs: a few executions each are plenty. */
const RESERVED_DASHBOARD = 5;
export const reservedConcurrency = (kind: FunctionKind, name: FunctionName): number =>
  RESERVED_OVERRIDES[name] ?? (name.startsWith('dashboard-') ? RESERVED_DASHBOARD : RESERVED_CONCURRENCY[kind]);

/**
 * Each function infra/function-limits.ts gives more than its kind's is one of the stack's: a
 * misspelt name fails to compile. The check is here because the local host reads that file
 * and must not reach the stack's names (decision 221).
 */
export type LimitOverrides = Pick<Record<FunctionName, unknown>, keyof typeof LIMIT_OVERRIDES>;

/** The timeout a function gets (the delivery queue's visibility timeout is derived from the deliverer's). */
export const functionTimeout = (kind: FunctionKind, name: FunctionName): Duration =>
  Duration.seconds(functionLimits(kind, name).timeoutSeconds);

export interface FunctionFactoryProps extends AccessTargets {
  readonly settings: Settings;
  /** The ECS platform, when the stage runs `platform=ecs`: PLATFORM_SETTINGS' JSON and what the driver's grants reach. */
  readonly platform?: { readonly settingsJson: string; readonly targets: DriverTargets };
}

export interface ServiceFunction {
  readonly name: FunctionName;
  readonly kind: FunctionKind;
  readonly fn: NodejsFunction;
  readonly access: FunctionAccess;
}

export class FunctionFactory extends Construct {
  private readonly made = new Map<FunctionName, ServiceFunction>();
  private readonly logGroups = new Map<FunctionKind, logs.LogGroup>();

  constructor(
    scope: Construct,
    id: string,
    private readonly props: FunctionFactoryProps,
  ) {
    super(scope, id);
    Validations.of(this).acknowledge(OUTSIDE_VPC);
  }

  /** Every function made so far, in creation order. */
  get all(): ServiceFunction[] {
    return [...this.made.values()];
  }

  get(name: FunctionName): ServiceFunction {
    const found = this.made.get(name);
    if (!found) throw new Error(`function ${name} has not been created`);
    return found;
  }

  /**
   * One log group per kind of function (decision 155): Lambda names each stream after its
   * function, so a group holds them apart, and 3 groups instead of one per function keep
   * the stack far under CloudFormation's resource limit.
   */
  private logGroupOf(kind: FunctionKind): logs.LogGroup {
    let group = this.logGroups.get(kind);
    if (!group) {
      group = new logs.LogGroup(this, `${pascalCase(kind)}FunctionLogs`, {
        retention: this.props.settings.logRetention,
        removalPolicy: this.props.settings.removalPolicy,
      });
      Validations.of(group).acknowledge(LOG_GROUP_KMS);
      this.logGroups.set(kind, group);
    }
    return group;
  }

  /**
   * Creates the function for functions/<kind>/<name>.ts. `stateMachine` is required
   * exactly when the function's access entry names Step Functions actions.
   */
  create(kind: FunctionKind, name: FunctionName, stateMachine?: sfn.StateMachine): ServiceFunction {
    if (this.made.has(name)) throw new Error(`function ${name} is created twice`);
    const access = FUNCTION_ACCESS[name];
    if (!access) throw new Error(`${name} has no entry in FUNCTION_ACCESS (infra/aws/function-access.ts)`);
    if (access.states.length > 0 && !stateMachine) throw new Error(`${name} needs the state machine (it uses ${access.states.join(', ')})`);
    const entry = entryOf(kind, name);
    if (!fs.existsSync(entry))
      throw new Error(`handler module ${path.relative(REPO_ROOT, entry)} does not exist (named by ${NAMED_BY[kind]})`);

    const { settings, table, deliveryQueue, webhookKey, userPool } = this.props;
    const id = pascalCase(name);
    const files = RUNTIME_FILES[name]?.();
    const platformUse = this.props.platform ? PLATFORM_USE[name] : undefined;
    const logGroup = this.logGroupOf(kind);
    // Its own role without the AWS managed basic-execution policy: logs go to its kind's log group only.
    const role = new FunctionRole(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${name} function (${settings.stage})`,
    });
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );

    const fn = new NodejsFunction(this, id, {
      entry,
      handler: 'handler',
      description: `${name} (${settings.stage})`,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: functionLimits(kind, name).memoryMb,
      timeout: functionTimeout(kind, name),
      reservedConcurrentExecutions: settings.reservedConcurrency ? reservedConcurrency(kind, name) : undefined,
      tracing: lambda.Tracing.ACTIVE,
      role,
      logGroup,
      // Lambda's advanced logging controls (decision 180): JSON lines, and the level Lambda
      // passes on, which it also gives the function as AWS_LAMBDA_LOG_LEVEL for the logger to
      // follow. DEBUG, so that the DEBUG lines the logger holds reach the log group when an
      // invocation logs an error (functions/lib/logger.ts); lower it per function to quiet one.
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: APPLICATION_LOG_LEVEL,
      systemLogLevelV2: lambda.SystemLogLevel.INFO,
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      environment: functionEnv({
        settings,
        tableName: usesTable(access) ? table.tableName : undefined,
        stateMachineArn: access.states.length > 0 ? stateMachine?.stateMachineArn : undefined,
        deliveryQueueUrl: access.queue.length > 0 ? deliveryQueue.queueUrl : undefined,
        webhookKeyId: access.kms.length > 0 ? webhookKey.keyArn : undefined,
        apiKeySecretArn: access.apiKeySecret ? this.props.apiKeySecret.secretArn : undefined,
        userPool: access.userPool ? { issuer: userPool.issuer, clientId: userPool.clientId } : undefined,
        files: files && { [files.envVar]: `/var/task/${files.into}` },
        platformSettings: platformUse ? this.props.platform?.settingsJson : undefined,
      }),
      bundling: {
        forceDockerBundling: false,
        ...BUNDLE_OPTIONS,
        logLevel: LogLevel.WARNING,
        // The SDK version the code is tested with, not whatever the runtime carries.
        bundleAwsSDK: true,
        // swagger-ui-dist is only ever located with createRequire().resolve, as a fallback to SWAGGER_UI_DIST.
        externalModules: externalModulesOf(name),
        commandHooks: {
          beforeInstall: () => [],
          beforeBundling: () => [],
          afterBundling: (_input: string, output: string) => [
            ...(files
              ? [
                  `mkdir -p "${output}/${files.into}"`,
                  ...files.files.map((f) => `cp "${path.join(files.from, f)}" "${output}/${files.into}/"`),
                ]
              : []),
            ...lazyModuleCopies(name, output),
          ],
        },
      },
    });

    grantAccess(role, access, this.props, stateMachine);
    if (platformUse && this.props.platform) grantDriver(role, platformUse, this.props.platform.targets);
    dropRoleDependsOn(fn.node.defaultChild as CfnResource, role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords do not support resource-level permissions.',
    });

    const made: ServiceFunction = { name, kind, fn, access };
    this.made.set(name, made);
    return made;
  }
}

/**
 * A role that keeps every statement granted to it in one inline policy of its own, not in
 * an AWS::IAM::Policy resource beside it: one resource fewer per function, where the
 * template has to stay well under CloudFormation's 500 (decision 151). IAM counts both
 * kinds as the role's inline policies, so the size limit is the same; and the function
 * cannot start before its grants exist, since they are created with its role.
 */
class FunctionRole extends iam.Role {
  private readonly document: iam.PolicyDocument;

  constructor(scope: Construct, id: string, props: iam.RoleProps) {
    const document = new iam.PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { ...props.inlinePolicies, access: document } });
    this.document = document;
  }

  override addToPrincipalPolicy(statement: iam.PolicyStatement): iam.AddToPrincipalPolicyResult {
    this.document.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}
