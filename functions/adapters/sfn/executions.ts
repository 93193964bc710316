/**
 * Step Functions executions, one per operation and named after it. The one SFN client
 * finds a local endpoint through the standard AWS_ENDPOINT_URL_SFN variable.
 */
import {
  DescribeExecutionCommand,
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { WorkflowInput } from '../../core/operations.js';
import { config } from '../../lib/config.js';

let client: SFNClient | undefined;
/**
 * The one SFN client, made at first use: the workflow steps share a module with the
 * reconciler, and only a function that calls Step Functions should bundle the client.
 */
const sfn = () => {
  client ??= new SFNClient({});
  return client;
};

/** Execution ARNs follow from the state machine's ARN and the execution's name. */
export const executionArn = (operationId: string): string =>
  `${config().stateMachineArn.replace(':stateMachine:', ':execution:')}:${operationId}`;

/** Starts the operation's workflow; starting it twice is harmless (same name, same input). */
export async function startExecution(input: WorkflowInput): Promise<void> {
  try {
    await sfn().send(
      new StartExecutionCommand({ stateMachineArn: config().stateMachineArn, name: input.operation_id, input: JSON.stringify(input) }),
    );
  } catch (e) {
    if (!(e instanceof ExecutionAlreadyExists)) throw e;
  }
}

export async function stopExecution(operationId: string, cause: string): Promise<void> {
  try {
    await sfn().send(new StopExecutionCommand({ executionArn: executionArn(operationId), error: 'OperationCanceled', cause }));
  } catch (e) {
    if (!(e instanceof ExecutionDoesNotExist)) throw e;
  }
}

export type ExecutionState = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED' | 'PENDING_REDRIVE' | 'MISSING';

export async function describeExecution(operationId: string): Promise<ExecutionState> {
  try {
    const out = await sfn().send(new DescribeExecutionCommand({ executionArn: executionArn(operationId) }));
    return (out.status ?? 'MISSING') as ExecutionState;
  } catch (e) {
    if (e instanceof ExecutionDoesNotExist) return 'MISSING';
    throw e;
  }
}
