/**
 * The workflow's executions on AWS (functions/adapters/sfn/executions.ts) against moto's
 * Step Functions, with the state machine created from statemachines/operation.asl.json as
 * the stack creates it: started under the operation's name (twice is harmless), described,
 * stopped (a stop of one that never started is harmless too).
 */
import { CreateStateMachineCommand, DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { describeExecution, executionArn, startExecution, stopExecution } from '../../functions/adapters/sfn/executions.js';
import { PHASES, type WorkflowInput } from '../../functions/core/operations.js';
import { stateMachineFiles, substitute } from '../../infra/state-machines.js';

const sfn = new SFNClient({});
const ACCOUNT = '123456789012';

beforeAll(async () => {
  const operation = stateMachineFiles().find((f) => f.name === 'operation')!;
  // Each Task names its handler's Lambda function, as the stack's substitution does.
  const arns = Object.fromEntries(
    Object.entries(operation.functions).map(([placeholder, handler]) => [
      placeholder,
      `arn:aws:lambda:us-east-1:${ACCOUNT}:function:${handler}`,
    ]),
  );
  const { stateMachineArn } = await sfn.send(
    new CreateStateMachineCommand({
      name: operation.name,
      definition: substitute(operation.text, arns),
      roleArn: `arn:aws:iam::${ACCOUNT}:role/operation-workflow`,
    }),
  );
  process.env.STATE_MACHINE_ARN = stateMachineArn;
});

afterAll(() => sfn.destroy());

const input = (operationId: string): WorkflowInput => ({
  org_id: 'org-sfn',
  operation_id: operationId,
  deployment_id: 'dep_sfn',
  type: 'deployment.create',
  phases: PHASES['deployment.create'].work,
});

it('starts an execution named after the operation, with the workflow input; a second start is harmless', async () => {
  await startExecution(input('op_start'));
  await startExecution(input('op_start'));
  const described = await sfn.send(new DescribeExecutionCommand({ executionArn: executionArn('op_start') }));
  expect(described.name).toBe('op_start');
  expect(described.stateMachineArn).toBe(process.env.STATE_MACHINE_ARN);
  expect(JSON.parse(described.input!)).toEqual(input('op_start'));
  expect(await describeExecution('op_start')).toBe('RUNNING');
});

it('stops a running execution, which then reads as aborted; stopping one that never started is harmless', async () => {
  await startExecution(input('op_stop'));
  await stopExecution('op_stop', 'the deployment was destroyed');
  expect(await describeExecution('op_stop')).toBe('ABORTED');
  await expect(stopExecution('op_never', 'nothing to stop')).resolves.toBeUndefined();
});

it('reads an execution that does not exist as MISSING', async () => {
  expect(await describeExecution('op_unknown')).toBe('MISSING');
});
