/**
 * The operation workflow (infra/aws/state-machine.ts): the ASL file as written, its logs, its grants
 * and the reconciler's schedule.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { OPERATION_ASL } from '../../infra/aws/state-machine.js';
import { actionsOf, flatten, fnId, logicalId, resourcesOf, resourcesOfType, stageOf, statementsOfRole } from './synth.js';

const s = stageOf({ stage: 'dev' });

describe('operation workflow', () => {
  it('is the ASL file as written, with each ${XFunctionArn} filled by the function for functions/workflow/x.ts', () => {
    const [, sm] = resourcesOfType(s.json, 'AWS::StepFunctions::StateMachine')[0]!;
    const asl = fs.readFileSync(OPERATION_ASL, 'utf8');
    // DefinitionBody.fromFile ships the file as an asset; CloudFormation fills the placeholders.
    const uploaded = path.join(s.outdir, `asset.${sm.Properties?.DefinitionS3Location.Key}`);
    expect(fs.readFileSync(uploaded, 'utf8')).toBe(asl);
    const placeholders = [...new Set([...asl.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]))];
    expect(placeholders.length).toBeGreaterThan(0);
    const subs = sm.Properties?.DefinitionSubstitutions as Record<string, unknown>;
    expect(Object.keys(subs).sort()).toEqual([...placeholders].sort());
    expect(subs).toEqual({
      StartPhaseFunctionArn: { 'Fn::GetAtt': [fnId(s, 'start-phase'), 'Arn'] },
      CheckPhaseFunctionArn: { 'Fn::GetAtt': [fnId(s, 'check-phase'), 'Arn'] },
      CompleteOperationFunctionArn: { 'Fn::GetAtt': [fnId(s, 'complete-operation'), 'Arn'] },
      FailOperationFunctionArn: { 'Fn::GetAtt': [fnId(s, 'fail-operation'), 'Arn'] },
    });
  });

  it('logs ALL to its log group with execution data, and is traced', () => {
    s.template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: true, Destinations: [Match.anyValue()] },
    });
  });

  it('logs under /aws/vendedlogs/states/ (no resource policy entry per group), named for this stack', () => {
    const [, group] = resourcesOfType(s.json, 'AWS::Logs::LogGroup').find(([id]) => id === logicalId(s.stack.workflow.logGroup))!;
    expect(flatten(group.Properties?.LogGroupName)).toMatch(/^\/aws\/vendedlogs\/states\/DeploymentApi-dev-workflow-/);
  });

  it('may invoke exactly its step functions', () => {
    const role = logicalId(s.stack.workflow.stateMachine.role);
    const invoke = statementsOfRole(s.json, role).filter((st) => actionsOf(st).includes('lambda:InvokeFunction'));
    expect(invoke).toHaveLength(1);
    expect(resourcesOf(invoke[0]!).map(flatten).sort()).toEqual(
      (['start-phase', 'check-phase', 'complete-operation', 'fail-operation'] as const).map((n) => `<GetAtt:${fnId(s, n)}.Arn>`).sort(),
    );
  });

  it('runs reconcile-operations every 5 minutes', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId(s, 'reconcile-operations'), 'Arn'] } })],
    });
  });
});
