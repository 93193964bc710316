/**
 * The operation workflow: statemachines/operation.asl.json as written, with each
 * `${XFunctionArn}` placeholder filled by CloudFormation with the ARN of the function
 * for functions/workflow/<kebab-case of X>.ts. The placeholders found in the file
 * decide which step functions exist; nothing here lists them again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Aws, type CfnResource, Fn, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { FUNCTION_ACCESS, type FunctionName } from './function-access.js';
import { REPO_ROOT } from './functions.js';
import { dropRoleDependsOn, LOG_GROUP_KMS } from './nag.js';
import type { Settings } from './settings.js';

export const OPERATION_ASL = path.join(REPO_ROOT, 'statemachines', 'operation.asl.json');

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const FUNCTION_ARN = /^([A-Z][A-Za-z0-9]*)FunctionArn$/;

export interface AslStep {
  /** The placeholder's name, e.g. `StartPhaseFunctionArn`. */
  readonly placeholder: string;
  /** The module in functions/workflow/, e.g. `start-phase`. */
  readonly name: FunctionName;
}

/** The steps an ASL file names through its `${XFunctionArn}` placeholders (each once, in order of appearance). */
export function aslSteps(text: string): AslStep[] {
  const seen = new Map<string, AslStep>();
  for (const [, placeholder = ''] of text.matchAll(PLACEHOLDER)) {
    if (seen.has(placeholder)) continue;
    const m = FUNCTION_ARN.exec(placeholder);
    if (!m?.[1])
      throw new Error(`ASL placeholder \${${placeholder}} is not of the form \${<Step>FunctionArn}; the stack only fills function ARNs`);
    const name = m[1].replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
    if (!(name in FUNCTION_ACCESS))
      throw new Error(`ASL placeholder \${${placeholder}} names functions/workflow/${name}.ts, which has no entry in FUNCTION_ACCESS`);
    seen.set(placeholder, { placeholder, name: name as FunctionName });
  }
  return [...seen.values()];
}

export interface OperationStateMachineProps {
  readonly settings: Settings;
  readonly aslFile: string;
  /** The function for each step the ASL names. */
  readonly stepFunctions: ReadonlyMap<FunctionName, lambda.IFunction>;
}

export class OperationStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: OperationStateMachineProps) {
    super(scope, id);
    const steps = aslSteps(fs.readFileSync(props.aslFile, 'utf8'));
    const substitutions: Record<string, string> = {};
    const invoked: string[] = [];
    for (const step of steps) {
      const fn = props.stepFunctions.get(step.name);
      if (!fn) throw new Error(`no function given for ASL step ${step.name}`);
      substitutions[step.placeholder] = fn.functionArn;
      invoked.push(fn.functionArn);
    }

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      // Under /aws/vendedlogs/ CloudWatch Logs needs no resource policy entry per log group (its
      // 5,120-character policy fills up otherwise); the stack's own id keeps the name unique
      // when a retained group of a deleted stack still exists.
      logGroupName: `/aws/vendedlogs/states/${Stack.of(this).stackName}-workflow-${Fn.select(2, Fn.split('/', Aws.STACK_ID))}`,
      retention: props.settings.logRetention,
      removalPolicy: props.settings.removalPolicy,
    });
    Validations.of(this.logGroup).acknowledge(LOG_GROUP_KMS);
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromFile(props.aslFile),
      definitionSubstitutions: substitutions,
      tracingEnabled: true,
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: true },
    });
    // Exactly the unqualified ARNs the ASL invokes (no `:*` for versions and aliases it never uses).
    this.stateMachine.addToRolePolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: invoked }));
    dropRoleDependsOn(this.stateMachine.node.defaultChild as CfnResource, this.stateMachine.role);
    Validations.of(this.stateMachine).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Execution logging (logs:CreateLogDelivery and related) and X-Ray tracing actions do not support resource-level permissions.',
    });
  }
}
